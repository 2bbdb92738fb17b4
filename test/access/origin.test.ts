// The Origin rule (MCP's transport rule against DNS rebinding): its verdicts are kept per access
// configuration (issue 20), and must stay those of judging every request afresh.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { isOriginAllowed, judgeOrigin } from '../../src/access/origin.js'
import type { AccessConfig } from '../../src/access/types.js'

/** The rule as it was before verdicts were kept: a URL parse of the Origin and of publicUrl each time. */
function reference(origin: string | undefined, access: AccessConfig): boolean {
  if (origin === undefined || access.allowedOrigins === '*') return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.origin !== origin.toLowerCase().replace(/\/$/, '')) return false
  if (['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return true
  if (access.publicUrl && new URL(access.publicUrl).origin === url.origin) return true
  return access.allowedOrigins.includes(url.origin)
}

const access = (publicUrl: string | undefined, allowedOrigins: AccessConfig['allowedOrigins']) =>
  ({ mode: 'open', clients: [], allowedOrigins, ...(publicUrl ? { publicUrl } : {}) }) as AccessConfig

const hosts = ['localhost', '127.0.0.1', '[::1]', 'tools.example.com', 'studio.example.org', 'evil.example']
const origin = fc.oneof(
  fc
    .record({
      scheme: fc.constantFrom('http', 'https', 'HTTP', 'file', 'ftp'),
      host: fc.constantFrom(...hosts, ...hosts.map((host) => host.toUpperCase()), 'localhost.evil.example'),
      port: fc.option(fc.constantFrom(':80', ':443', ':3000', ':8443', ':'), { nil: '' }),
      tail: fc.constantFrom('', '/', '//', '/path', '?q', '#x'),
    })
    .map(({ scheme, host, port, tail }) => `${scheme}://${host}${port}${tail}`),
  fc.constantFrom('null', 'file://', '', ' http://localhost', 'http://localhost '),
  fc.string({ maxLength: 40 }),
  fc.string({ minLength: 250, maxLength: 300 }).map((tail) => `http://localhost/${tail}`),
)

test('isOriginAllowed gives the fresh verdict, asked once or again, over a kept verdict set that fills and clears', () => {
  const configs = [
    access(undefined, []),
    access('https://tools.example.com', ['https://studio.example.org']),
    access('https://tools.example.com:8443/base', ['https://studio.example.org', 'http://evil.example']),
    access(undefined, '*'),
  ]
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.option(origin, { nil: undefined }), fc.nat(3)), { maxLength: 120 }),
      (asks) => {
        for (const [asked, index] of asks) {
          const config = configs[index]!
          const fresh = reference(asked, config)
          assert.equal(isOriginAllowed(asked, config), fresh, String(asked))
          assert.equal(isOriginAllowed(asked, config), fresh, `${String(asked)} (again)`)
          if (asked !== undefined && config.allowedOrigins !== '*')
            assert.equal(judgeOrigin(asked, config), fresh)
        }
      },
    ),
    { numRuns: 300 },
  )
})

test('the same Origin under two configurations gets each its own verdict', () => {
  const closed = access(undefined, [])
  const studio = access(undefined, ['https://studio.example.org'])
  for (let i = 0; i < 3; i++) {
    assert.equal(isOriginAllowed('https://studio.example.org', closed), false)
    assert.equal(isOriginAllowed('https://studio.example.org', studio), true)
  }
  // More distinct Origins than are kept: the early ones are judged again, the same way.
  for (let i = 0; i < 200; i++) assert.equal(isOriginAllowed(`https://h${i}.example`, studio), false)
  assert.equal(isOriginAllowed('https://studio.example.org', studio), true)
  assert.equal(isOriginAllowed('http://localhost:5173', closed), true)
})
