// Issue 20: the upstream client reads undici's raw header list itself (no parsed object of every
// header per call). What it keeps must be what undici's own parseHeaders gave for those names, and
// the headers a caller is relayed (SPEC §3 step 6) must reach it as before.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { util } from 'undici'
import type { ToolOutcome } from '../../src/executor/index.js'
import { KEPT_HEADERS, keptHeaders } from '../../src/executor/upstream-client.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

fc.configureGlobal({ includeErrorInReport: true })

const KEPT: readonly string[] = KEPT_HEADERS

/** A kept name in any case, a name of the same length that is not kept, or any token. */
const headerName = fc.oneof(
  fc
    .tuple(fc.constantFrom(...KEPT), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }))
    .map(([name, upper]) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join('')),
  fc.constantFrom('date', 'Date', 'etah', 'linK2', 'content-typo', 'x-etag', 'connection', 'keep-alive'),
  fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}$/),
)
/** Any value bytes, latin1 included (undici hands values over undecoded). */
const headerValue = fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes))

describe('the kept upstream headers', () => {
  test('are what undici parseHeaders gives for the kept names, for any raw header list', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(headerName, headerValue), { maxLength: 12 }), (pairs) => {
        const raw = pairs.flatMap(([name, value]) => [Buffer.from(name, 'latin1'), value])
        const parsed = util.parseHeaders(raw) as Record<string, string | string[]>
        const expected = Object.fromEntries(Object.entries(parsed).filter(([name]) => KEPT.includes(name)))
        const kept = Object.entries(keptHeaders(raw)).filter(([, value]) => value !== undefined)
        assert.deepEqual(Object.fromEntries(kept), expected)
      }),
      { numRuns: 500 },
    )
  })

  test('a real answer: relayed headers reach the caller (repeated ones joined), others are not kept', async (t) => {
    const upstream = await startUpstream(t, (_received, res) => {
      res.writeHead(
        201,
        [
          ['Content-Type', 'application/json; charset=utf-8'],
          ['Location', '/items/7'],
          ['ETag', '"v7"'],
          ['Last-Modified', 'Wed, 25 Nov 2026 11:00:00 GMT'],
          ['Link', '</items?page=2>; rel="next"'],
          ['LINK', '</items?page=9>; rel="last"'],
          ['X-Internal', 'not relayed'],
        ].flat(),
      )
      res.end('{"id":"7"}')
    })
    const spec = openapi({ '/items': { post: { operationId: 'create', responses: ok } } })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const outcome: ToolOutcome = await call('s:create', {})
    assert.equal(outcome.kind, 'answer')
    assert.equal(outcome.status, 201)
    assert.deepEqual(outcome.headers, {
      location: '/items/7',
      etag: '"v7"',
      'last-modified': 'Wed, 25 Nov 2026 11:00:00 GMT',
      link: '</items?page=2>; rel="next", </items?page=9>; rel="last"',
    })
    assert.ok(outcome.kind === 'answer' && outcome.body.type === 'json')
    assert.equal(outcome.body.contentType, 'application/json; charset=utf-8')
    assert.equal(outcome.body.bytes.toString(), '{"id":"7"}')
  })
})
