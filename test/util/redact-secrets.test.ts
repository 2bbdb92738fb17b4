// A secret quoted back by a peer is redacted in every form it travelled in: as configured, trimmed
// of the spaces and tabs HTTP strips around a header value, and JSON-escaped (issue 41 class 3;
// found by the generated secret-leak test with a token ending in a tab).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { redactSecrets } from '../../src/util/redact-secrets.js'

test('property: a secret, its HTTP-trimmed form and their JSON escapes never survive redaction', () => {
  // No brackets: a secret could otherwise be spelled across "[redacted]" and its neighbour.
  const core = fc
    .string({ minLength: 6, maxLength: 30 })
    .filter((s) => s.trim() === s && !s.includes('[') && !s.includes(']') && !/^[ \t]|[ \t]$/.test(s))
  const ows = fc.constantFrom('', ' ', '\t', ' \t ', '\t\t')
  fc.assert(
    fc.property(core, ows, ows, fc.string(), fc.string(), (middle, lead, tail, before, after) => {
      const secret = `${lead}${middle}${tail}`
      for (const quoted of [
        secret,
        middle,
        JSON.stringify(middle).slice(1, -1),
        JSON.stringify(secret).slice(1, -1),
      ]) {
        const out = redactSecrets(`${before}${quoted}${after}`, [secret])
        assert.ok(!out.includes(middle), `${JSON.stringify(middle)} survived in ${JSON.stringify(out)}`)
      }
    }),
    { numRuns: 500 },
  )
})
