// CORS `*` on every answer, preflights answered by @fastify/cors (plugins/cors.ts). A simple
// request's two headers are set by our own first hook, so every answer must carry them: those a
// later hook refuses (401), those no route matches (404), those whose body does not parse (400).
// Open mode's operator routes are the exception: test/app/operator-origin.test.ts.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { EXPOSED_HEADERS } from '../../plugins/cors.js'
import { configFile, exampleApp, testApp } from '../helpers/app.js'

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

  test('property: every header a browser client needs is exposed, on every kind of answer (issue 42)', async (t) => {
    const { app } = await exampleApp(
      t,
      [
        'publicUrl: http://localhost:3000',
        'clients:',
        `  - id: tiny`,
        `    token: { value: ${TOKEN} }`,
        '    tools: ["*"]',
        '    rateLimit: { max: 1000, windowSeconds: 60 }',
        '',
      ].join('\n'),
    )
    const etag = (await app.inject('/discovery')).headers.etag as string
    const authorized = { authorization: `Bearer ${TOKEN}` }
    const mcpBody = (method: string) => ({
      method: 'POST' as const,
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method, params: {} },
    })
    // One request of each kind the gateway answers: documents, 304s, 401s with a challenge, tool
    // calls relaying the upstream's headers, MCP, 405s, 404s, health and the session manifest.
    const kinds: InjectOptions[] = [
      { url: '/discovery' },
      { url: '/discovery', headers: { 'if-none-match': etag } },
      { url: '/openai.json', headers: authorized },
      mcpBody('tools/list'),
      {
        ...mcpBody('tools/list'),
        headers: { ...mcpBody('tools/list').headers, authorization: 'Bearer wrong' },
      },
      { ...mcpBody('tools/list'), headers: { ...mcpBody('tools/list').headers, ...authorized } },
      { method: 'GET', url: '/mcp', headers: authorized },
      { method: 'POST', url: '/tools/tickets_get_ticket', payload: { ticketId: 'T-1001' } },
      {
        method: 'POST',
        url: '/tools/tickets_get_ticket',
        headers: authorized,
        payload: { ticketId: 'T-1001' },
      },
      {
        method: 'POST',
        url: '/tools/tickets_get_ticket',
        headers: authorized,
        payload: { ticketId: 'T-NONE' },
      },
      { method: 'POST', url: '/tools/tickets_list_tickets', headers: authorized, payload: {} },
      { url: '/.well-known/oauth-protected-resource' },
      { url: '/no/such/route', headers: authorized },
      { url: '/health' },
      { url: '/ready' },
      { url: '/version' },
      { method: 'POST', url: '/api/sessions', headers: authorized, payload: { profile: 'discover' } },
    ]
    const seen = new Set<string>()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...kinds), fc.boolean(), async (options, fromBrowser) => {
        const headers = {
          ...(options.headers as object),
          ...(fromBrowser ? { origin: 'http://localhost:5173' } : {}),
        }
        const res = await app.inject({ ...options, headers })
        const exposed = new Set(
          String(res.headers['access-control-expose-headers'] ?? '')
            .split(',')
            .map((name) => name.trim().toLowerCase()),
        )
        for (const name of Object.keys(res.headers)) {
          seen.add(name)
          if (NOT_FOR_SCRIPTS.has(name) || name.startsWith('access-control-')) continue
          assert.ok(
            exposed.has(name),
            `${options.method ?? 'GET'} ${options.url} (${res.statusCode}): ${name} is not exposed`,
          )
        }
      }),
      { numRuns: 80 },
    )
    for (const needed of [
      'www-authenticate',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'api-version',
      'catalog-version',
      'x-request-id',
      'etag',
    ])
      assert.ok(seen.has(needed), `no answer carried ${needed}: the property did not cover it`)
  })
})

const TOKEN = 'cors-client-token-000042'

/**
 * What a script need not read: CORS-safelisted names (always readable), hop-by-hop and the
 * browser's own security headers.
 */
const NOT_FOR_SCRIPTS = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
  'content-encoding',
  'x-content-type-options',
  'content-security-policy',
  'referrer-policy',
  'x-frame-options',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'strict-transport-security',
  'permissions-policy',
])
