// Issue 14, class 4: what a caller sends in a request's framing (its body, its URL) is a client's
// error — a 4xx naming what was wrong, never a 500 — and session codes (bearer secrets) never reach
// a log line, however they are sent. Generated with fast-check over every session route.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { redactUrl } from '../../src/util/redact-url.js'
import { loggedApp } from '../helpers/app.js'

/** No 5xx; a JSON error body with a message, not longer than `maxBytes` (nothing big echoed back). */
function assertClientError(res: LightMyRequestResponse, what: string, maxBytes = 1_024) {
  assert.ok(
    res.statusCode >= 400 && res.statusCode < 500,
    `${what}: ${res.statusCode} ${res.body.slice(0, 200)}`,
  )
  assert.ok(res.body.length <= maxBytes, `${what}: a ${res.body.length}-byte answer echoes the request`)
  const body = res.json() as { error?: unknown }
  assert.equal(typeof body.error, 'string', `${what}: ${res.body.slice(0, 200)}`)
}

const SESSION_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.split('')
/** A well-formed session code (SESSION_CODE_PATTERN). */
const sessionCode = fc
  .array(fc.constantFrom(...SESSION_ALPHABET), { minLength: 32, maxLength: 32 })
  .map((c) => c.join(''))

/** JSON text with a prototype-poisoning key somewhere in it. */
const poisoned = fc
  .tuple(
    fc.constantFrom('"__proto__"', '"constructor"'),
    fc.json({ maxDepth: 2 }),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([key, inner, depth]) => {
    const payload = key === '"constructor"' ? `{"prototype": ${inner}}` : inner
    let text = `{${key}: ${payload}}`
    for (let i = 0; i < depth; i++) text = `{"profile": "discover", "nested": ${text}}`
    return text
  })

/** Bodies a careless or hostile client sends with `content-type: application/json`. */
const hostileBody = fc.oneof(
  fc.string({ maxLength: 40 }), // mostly not JSON
  fc.constantFrom('', ' ', '\n', '{', '[', 'null', 'true', '"x"', '[]', '{"profile": }', '\u0000'),
  poisoned,
  fc.json({ maxDepth: 3 }).filter((text) => !text.startsWith('{')), // valid JSON, not an object
  fc.object({ maxDepth: 2 }).map((value) => JSON.stringify(value)), // objects with unknown keys
  fc.string({ unit: 'binary', maxLength: 20 }).map((text) => `{"profile": ${JSON.stringify(text)}}`),
)

describe('hostile requests: bodies and URLs (issue 14, class 4)', () => {
  test('POST /api/sessions: any malformed, empty, poisoned or non-object body is a 4xx naming the problem', async (t) => {
    const app = await loggedApp(t, [])
    await fc.assert(
      fc.asyncProperty(hostileBody, async (payload) => {
        const res = await app.inject({
          method: 'POST',
          url: '/api/sessions',
          headers: { 'content-type': 'application/json' },
          payload,
        })
        if (res.statusCode === 201) {
          // Only a JSON object naming a known profile (or none) creates a session.
          const value = JSON.parse(payload) as Record<string, unknown>
          assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), payload)
          return
        }
        assertClientError(res, `body ${JSON.stringify(payload).slice(0, 80)}`)
      }),
      { numRuns: 300 },
    )
  })

  test('the named refusals: invalid JSON, empty, __proto__, 2 MB, wrong media type', async (t) => {
    const app = await loggedApp(t, [])
    const post = (payload: string, type = 'application/json') =>
      app.inject({ method: 'POST', url: '/api/sessions', headers: { 'content-type': type }, payload })
    const cases: [string, string, number, string, RegExp][] = [
      ['invalid JSON', '{"profile": ', 400, 'TG_ERR_REQUEST_BODY_INVALID', /not valid JSON/],
      ['empty body', '', 400, 'TG_ERR_REQUEST_BODY_INVALID', /empty/],
      ['__proto__ key', '{"__proto__": {"admin": true}}', 400, 'TG_ERR_REQUEST_BODY_INVALID', /__proto__/],
      [
        'constructor.prototype',
        '{"constructor": {"prototype": {}}}',
        400,
        'TG_ERR_REQUEST_BODY_INVALID',
        /prototype/,
      ],
      [
        '2 MB body',
        JSON.stringify({ profile: 'x'.repeat(2_000_000) }),
        413,
        'TG_ERR_REQUEST_BODY_TOO_LARGE',
        /1048576 bytes/,
      ],
    ]
    for (const [what, payload, status, code, message] of cases) {
      const res = await post(payload)
      assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 200)}`)
      assert.equal(res.json().code, code, what)
      assert.match(res.json().error, message, what)
    }
    const text = await post('profile=discover', 'text/plain')
    assertClientError(text, 'a text/plain body')
    assert.match(text.json().error, /body must be object/)
    // The same parser guards every JSON route: a tool call with a poisoned body.
    const tool = await app.inject({
      method: 'POST',
      url: '/tools/tickets_get_ticket',
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__": {"x": 1}}',
    })
    assert.equal(tool.statusCode, 400, tool.body)
    assert.equal(tool.json().code, 'TG_ERR_REQUEST_BODY_INVALID')
  })

  test('any session code in a URL, however long or strange, is a 4xx that echoes nothing back', async (t) => {
    const app = await loggedApp(t, [])
    const code = fc.oneof(
      fc.string({ minLength: 1, maxLength: 64 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }),
      fc.integer({ min: 500, max: 12_000 }).map((n) => 'A'.repeat(n)),
      fc.constantFrom('%', '%E0%A4%A', '%00', '..', '%2F..%2F', 'A'.repeat(513)),
    )
    await fc.assert(
      fc.asyncProperty(code, fc.constantFrom('metadata', 'delete', 'query'), async (raw, route) => {
        const segment = /^%|%[0-9A-F]?$|%E0/.test(raw) ? raw : encodeURIComponent(raw)
        const res =
          route === 'query'
            ? await app.inject({ url: `/api/metadata?code=${segment}` })
            : await app.inject({
                method: route === 'delete' ? 'DELETE' : 'GET',
                url: `/api/sessions/${segment}${route === 'metadata' ? '/metadata' : ''}`,
              })
        assertClientError(res, `${route} ${segment.slice(0, 60)}`)
      }),
      { numRuns: 300 },
    )
    const long = await app.inject({ url: `/api/sessions/${'A'.repeat(10_240)}/metadata` })
    assert.equal(long.statusCode, 414)
    assert.equal(long.json().code, 'TG_ERR_REQUEST_URL_TOO_LONG')
    assert.doesNotMatch(long.body, /AAAA/)
    const bad = await app.inject({ url: '/api/sessions/%E0%A4%A/metadata' })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().code, 'TG_ERR_REQUEST_URL_INVALID')
  })

  test('session codes never reach a log line: path, query, DELETE, 404s and refusals, at info level', async (t) => {
    const lines: string[] = []
    const app = await loggedApp(t, lines)
    const created = await app.inject({ method: 'POST', url: '/api/sessions', payload: {} })
    assert.equal(created.statusCode, 201)
    const real = created.json().code as string
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(sessionCode, fc.constant(real)),
        fc.constantFrom(
          (c: string) => `/api/sessions/${c}/metadata`,
          (c: string) => `/api/metadata?code=${c}`,
          (c: string) => `/api/metadata?profile=x&code=${c}&x=1`,
          (c: string) => `/api//sessions/${c}/metadata`,
          (c: string) => `/api/sessions/${c}/unknown`,
          (c: string) => `/api/sessions/${c}?code=${c}`,
        ),
        fc.constantFrom('GET', 'DELETE', 'OPTIONS'),
        async (code, url, method) => {
          const before = lines.length
          const res = await app.inject({ method: method as 'GET', url: url(code) })
          assert.ok(res.statusCode < 500, `${method} ${url(code)}: ${res.statusCode}`)
          const logged = lines.slice(before).join('')
          assert.ok(logged.includes('incoming request'), 'the access log line is written')
          assert.ok(!logged.includes(code), `${method} ${url('<code>')} logged the code:\n${logged}`)
        },
      ),
      { numRuns: 200 },
    )
  })

  test('redactUrl: every session code and secret query value is replaced; other URLs are kept', () => {
    fc.assert(
      fc.property(
        sessionCode,
        fc.constantFrom('code', 'session', 'token', 'access_token', 'CODE'),
        (code, name) => {
          for (const url of [
            `/api/sessions/${code}`,
            `/api/sessions/${code}/metadata?x=1`,
            `/x?${name}=${code}&y=2`,
          ])
            assert.ok(!redactUrl(url).includes(code), url)
        },
      ),
    )
    fc.assert(
      fc.property(fc.webPath(), (path) => {
        if (!/\/api\/+sessions/i.test(path) && path.length <= 512) assert.equal(redactUrl(path), path)
      }),
    )
    assert.equal(redactUrl(`/x/${'a'.repeat(600)}`).length < 600, true)
  })
})
