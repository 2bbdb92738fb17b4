// CORS `*` on every answer, preflights answered by @fastify/cors (plugins/cors.ts). A simple
// request's two headers are set by our own first hook, so every answer must carry them: those a
// later hook refuses (401), those no route matches (404), those whose body does not parse (400).
// Open mode's operator routes are the exception: test/app/operator-origin.test.ts.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { EXPOSED_HEADERS } from '../../plugins/cors.js'
import { configFile, testApp } from '../helpers/app.js'

const EXPOSED = EXPOSED_HEADERS.join(', ')

function assertSimpleCors(res: Awaited<ReturnType<FastifyInstance['inject']>>, what: string) {
  assert.equal(res.headers['access-control-allow-origin'], '*', what)
  assert.equal(res.headers['access-control-expose-headers'], EXPOSED, what)
  assert.equal(
    res.headers['access-control-allow-methods'],
    undefined,
    `${what}: only a preflight lists methods`,
  )
}

describe('CORS', () => {
  test('every kind of answer carries the two simple-request headers, once', async (t) => {
    const app = await testApp(t)
    const etag = (await app.inject('/discovery')).headers.etag as string
    const requests: [string, InjectOptions][] = [
      ['a document', { url: '/discovery' }],
      ['a 304', { url: '/discovery', headers: { 'if-none-match': etag } }],
      ['no such route', { url: '/no/such/route' }],
      [
        'a body that is not JSON',
        { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{bad' },
      ],
      ['no such tool', { method: 'POST', url: '/tools/nothing_here', payload: {} }],
      ['health', { url: '/health' }],
    ]
    for (const [what, options] of requests) {
      const res = await app.inject(options)
      assertSimpleCors(res, `${what} (${res.statusCode})`)
    }
  })

  test('an answer refused by access control carries them too', async (t) => {
    const file = await configFile(
      'clients:\n  - id: a\n    token: { value: a-token-that-is-long-enough-01 }\n    tools: ["*"]\n',
    )
    const app = await testApp(t, { TOOLGATE_CONFIG: file })
    const res = await app.inject({ method: 'POST', url: '/tools/tickets_get_ticket', payload: {} })
    assert.equal(res.statusCode, 401)
    assertSimpleCors(res, 'a 401')
  })

  test('a preflight is answered with the methods, headers and max age; a malformed one is refused', async (t) => {
    const app = await testApp(t)
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-method',
      },
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], '*')
    assert.equal(preflight.headers['access-control-expose-headers'], EXPOSED)
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, DELETE, OPTIONS')
    assert.match(String(preflight.headers['access-control-allow-headers']), /Mcp-Method/)
    assert.equal(preflight.headers['access-control-max-age'], '600')
    // Without Origin it is no preflight (strictPreflight): 400, still with the simple headers.
    const bare = await app.inject({ method: 'OPTIONS', url: '/mcp' })
    assert.equal(bare.statusCode, 400)
    assertSimpleCors(bare, 'an OPTIONS without Origin')
  })

  test('property: any method and path, the simple headers; any OPTIONS with Origin and a method, a preflight', async (t) => {
    const app = await testApp(t)
    const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/)
    const path = fc.array(segment, { minLength: 0, maxLength: 4 }).map((parts) => `/${parts.join('/')}`)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE') as fc.Arbitrary<InjectOptions['method']>,
        path,
        async (method, url) => {
          const res = await app.inject({ method, url })
          assertSimpleCors(res, `${method} ${url} (${res.statusCode})`)
        },
      ),
      { numRuns: 60 },
    )
    await fc.assert(
      fc.asyncProperty(path, fc.constantFrom('GET', 'POST', 'DELETE'), async (url, requested) => {
        const res = await app.inject({
          method: 'OPTIONS',
          url,
          headers: { origin: 'https://agent.example', 'access-control-request-method': requested },
        })
        assert.equal(res.statusCode, 204, url)
        assert.equal(res.headers['access-control-allow-origin'], '*')
        assert.equal(res.headers['access-control-max-age'], '600')
      }),
      { numRuns: 30 },
    )
  })
})
