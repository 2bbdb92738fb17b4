// Issue 19: POST /tools/:name?dryRun=true answers the upstream request a call would send,
// credentials [redacted], and sends nothing. Compared with what a real upstream receives.
import assert from 'node:assert/strict'
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { configFile, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'
import { type Received, startUpstream, type TestUpstream } from '../helpers/upstreams.js'

const SECRETS = {
  key: 'hdr-key-7Qw9zX2m',
  query: 'qry key&=/9Lp',
  cookie: 'ck-Sess-4Tn8vB1r',
  password: 'pw-Basic-3Hj6kD0s',
  token: 'tok-Bearer-8Gf2yN5c',
  opal: 'opal-user-token-1Rm7uE4w',
  remote: 'remote-token-6Va3iK9q',
}
const REDACTED = '[redacted]'

const spec = openapi(
  {
    '/items/{id}': {
      post: {
        operationId: 'update',
        security: [{ key: [], queryKey: [], cookieKey: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'trace', in: 'header', schema: { type: 'string' } },
          { name: 'pref', in: 'cookie', schema: { type: 'string' } },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
        },
        responses: ok,
      },
    },
    '/form': {
      post: {
        operationId: 'form',
        security: [{ basic: [] }],
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: {
                  amount: { type: 'integer' },
                  metadata: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
            },
          },
        },
        responses: ok,
      },
    },
    '/multi': {
      post: {
        operationId: 'multi',
        security: [{ token: [] }],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                properties: {
                  file: { type: 'string', format: 'binary' },
                  note: { type: 'string' },
                  meta: { type: 'object', properties: { a: { type: 'integer' } } },
                },
              },
              encoding: { file: { contentType: 'image/png' } },
            },
          },
        },
        responses: ok,
      },
    },
    '/me': { get: { operationId: 'me', security: [{ token: [] }], responses: ok } },
    '/things/{id}': {
      delete: {
        operationId: 'remove',
        'x-cli-safety': { requiresApproval: true },
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: ok,
      },
    },
  },
  {
    components: {
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookieKey: { type: 'apiKey', in: 'cookie', name: 'sid' },
        basic: { type: 'http', scheme: 'basic' },
        token: { type: 'http', scheme: 'bearer' },
      },
    },
  },
)
// A service with only a relative server and no configured upstream: no base URL.
const relative = openapi(
  { '/ping': { get: { operationId: 'ping', responses: ok } } },
  { servers: [{ url: '/v1' }] },
)

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** A jsonrpc-mcp remote source: lists one tool, answers calls. */
async function jsonRpcUpstream(t: { after(fn: () => Promise<unknown>): void }) {
  return startUpstream(t, (received, res) => {
    if (received.target === '/mcp/tools/list')
      return json(res, {
        tools: [
          {
            name: 'content.read',
            description: 'Read content',
            inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
            annotations: { auth: { level: 'required' } },
          },
        ],
        nextCursor: null,
      })
    const call = JSON.parse(received.body.toString() || '{}')
    return json(res, { jsonrpc: '2.0', result: { ok: true }, id: call.id })
  })
}

async function dryRunApp(t: { after(fn: () => Promise<unknown>): void }, extraYaml = '') {
  const upstream = await startUpstream(t)
  const remote = await jsonRpcUpstream(t)
  const config = await configFile(
    [
      'services:',
      '  s:',
      `    upstream: ${upstream.url}/base`,
      '    opal: { forwardAccessToken: true }',
      '    credentials:',
      '      key: { env: DRY_KEY }',
      '      queryKey: { env: DRY_QUERY }',
      '      cookieKey: { env: DRY_COOKIE }',
      '      basic: { username: demo, password: { env: DRY_PASSWORD } }',
      '      token: { env: DRY_TOKEN }',
      'remoteSources:',
      `  - { id: drupal, baseUrl: "${remote.url}", format: jsonrpc-mcp, token: { env: DRY_REMOTE } }`,
      extraYaml,
    ].join('\n'),
  )
  const app = await testApp(
    t,
    {
      SPECS_DIR: MEMORY_DIR,
      TOOLGATE_CONFIG: config,
      DRY_KEY: SECRETS.key,
      DRY_QUERY: SECRETS.query,
      DRY_COOKIE: SECRETS.cookie,
      DRY_PASSWORD: SECRETS.password,
      DRY_TOKEN: SECRETS.token,
      DRY_REMOTE: SECRETS.remote,
    },
    memoryReader({ 's.yaml': spec, 'rel.yaml': relative }),
  )
  return { app, upstream, remote }
}

/** Every form a configured secret could take in an answer: as is, percent-encoded, in a Basic pair. */
function secretForms(secret: string): string[] {
  return [secret, encodeURIComponent(secret), Buffer.from(`demo:${secret}`).toString('base64')]
}

function assertNoSecret(text: string) {
  for (const secret of Object.values(SECRETS))
    for (const form of secretForms(secret)) assert.ok(!text.includes(form), `${form} appears in ${text}`)
}

type Headers = Record<string, string>
interface Preview {
  method: string
  url: string
  headers: Headers
  body: unknown
}

/** The same call twice, with and without ?dryRun=true, and the same request id. */
async function both(
  app: FastifyInstance,
  upstream: TestUpstream,
  tool: string,
  payload: unknown,
  headers: Headers = {},
): Promise<{ preview: Preview; received: Received; raw: string }> {
  const inject = (query: string) =>
    app.inject({
      method: 'POST',
      url: `/tools/${tool}${query}`,
      headers: { 'x-request-id': 'dry-run-1', ...headers },
      payload: payload as Record<string, unknown>,
    })
  const dry = await inject('?dryRun=true')
  assert.equal(dry.statusCode, 200, dry.body)
  assert.equal(upstream.received.length, 0, 'a dry run sends nothing')
  const real = await inject('')
  assert.equal(real.statusCode, 200, real.body)
  assert.equal(upstream.received.length, 1)
  return { preview: dry.json().request, received: upstream.received[0]!, raw: dry.body }
}

/** Framing headers undici adds itself; every other header received must be in the preview. */
const FRAMING = new Set(['host', 'connection', 'content-length', 'transfer-encoding'])

function assertSameHeaders(preview: Headers, received: IncomingHttpHeaders, redacted: readonly string[]) {
  for (const [name, value] of Object.entries(preview)) {
    if (redacted.includes(name)) continue
    assert.equal(received[name], value, `header ${name}`)
  }
  for (const name of Object.keys(received))
    if (!FRAMING.has(name) && !(name === 'content-type' && preview[name] === undefined))
      assert.ok(name in preview, `header ${name} was sent but the dry run does not show it`)
}

describe('POST /tools/:name?dryRun=true (issue 19)', () => {
  test('shows exactly what a real call sends: method, encoded path and query, headers, JSON body; credentials [redacted]', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const args = { id: 'a/b c✓', q: 'x y&z', trace: 't-1', pref: 'dark', title: 'Hi', tags: ['a'] }
    const { preview, received, raw } = await both(app, upstream, 's_update', args)
    const queryPair = `api_key=${encodeURIComponent(SECRETS.query)}`
    assert.ok(received.target.includes(queryPair), received.target)
    assert.equal(preview.method, received.method)
    assert.equal(preview.url, `${upstream.url}${received.target.replace(queryPair, 'api_key=[redacted]')}`)
    assert.match(preview.url, /\/base\/items\/a%2Fb%20c%E2%9C%93\?q=x%20y%26z&api_key=\[redacted\]$/)
    assert.equal(preview.headers['x-api-key'], REDACTED)
    assert.equal(received.headers['x-api-key'], SECRETS.key)
    assert.equal(preview.headers.cookie, 'pref=dark; sid=[redacted]')
    assert.equal(received.headers.cookie, `pref=dark; sid=${SECRETS.cookie}`)
    assert.equal(preview.headers['x-request-id'], 'dry-run-1')
    assertSameHeaders(preview.headers, received.headers, ['x-api-key', 'cookie'])
    assert.deepEqual(preview.body, { type: 'json', value: JSON.parse(received.body.toString()) })
    assertNoSecret(raw)
    const answer = JSON.parse(raw)
    assert.deepEqual([answer.dryRun, answer.tool, answer.approvalRequired], [true, 's_update', false])
  })

  test('form body as text, Basic credentials [redacted]', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const args = { amount: 2000, metadata: { order: 'A 1', 'k&y': 'v=1' } }
    const { preview, received, raw } = await both(app, upstream, 's_form', args)
    assert.equal(preview.url, `${upstream.url}${received.target}`)
    assert.equal(preview.headers.authorization, 'Basic [redacted]')
    assert.equal(
      received.headers.authorization,
      `Basic ${Buffer.from(`demo:${SECRETS.password}`).toString('base64')}`,
    )
    assertSameHeaders(preview.headers, received.headers, ['authorization'])
    assert.deepEqual(preview.body, { type: 'text', text: received.body.toString() })
    assertNoSecret(raw)
  })

  test('multipart: every part with its name, file name, content type and content; bearer [redacted]', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])
    const args = { file: png.toString('base64'), note: 'hello', meta: { a: 1 } }
    const { preview, received, raw } = await both(app, upstream, 's_multi', args)
    assert.equal(preview.headers.authorization, 'Bearer [redacted]')
    assert.equal(received.headers.authorization, `Bearer ${SECRETS.token}`)
    assertSameHeaders(preview.headers, received.headers, ['authorization'])
    assert.match(String(received.headers['content-type']), /^multipart\/form-data; boundary=/)
    const form = await new Response(received.body, {
      headers: { 'content-type': String(received.headers['content-type']) },
    }).formData()
    const sent = await Promise.all(
      [...form.entries()].map(async ([name, value]) => {
        if (typeof value === 'string') return { name, value }
        const bytes = Buffer.from(await value.arrayBuffer())
        const file = { name, filename: value.name, contentType: value.type, bytes: bytes.length }
        return value.type === 'application/json'
          ? { ...file, text: bytes.toString() }
          : { ...file, base64: bytes.toString('base64') }
      }),
    )
    assert.deepEqual(preview.body, { type: 'multipart', parts: sent })
    assert.deepEqual(sent, [
      { name: 'file', filename: 'file', contentType: 'image/png', bytes: 6, base64: png.toString('base64') },
      { name: 'note', value: 'hello' },
      { name: 'meta', filename: 'blob', contentType: 'application/json', bytes: 7, text: '{"a":1}' },
    ])
    assertNoSecret(raw)
  })

  test('a forwarded Opal access token is [redacted]; no body is null', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const payload = { parameters: {}, auth: { credentials: { access_token: SECRETS.opal } } }
    const { preview, received, raw } = await both(app, upstream, 's_me', payload)
    assert.equal(received.headers.authorization, `Bearer ${SECRETS.opal}`)
    assert.equal(preview.headers.authorization, 'Bearer [redacted]')
    assertSameHeaders(preview.headers, received.headers, ['authorization'])
    assert.equal(preview.body, null)
    assertNoSecret(raw)
  })

  test('a jsonrpc remote tool shows the JSON-RPC envelope, its token [redacted]', async (t) => {
    const { app, remote } = await dryRunApp(t)
    const listed = remote.received.length
    const res = await app.inject({
      method: 'POST',
      url: '/tools/drupal_content_read?dryRun=true',
      payload: { id: 7 },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(remote.received.length, listed, 'a dry run sends nothing')
    const { request } = res.json()
    assert.equal(request.method, 'POST')
    assert.equal(request.url, `${remote.url}/mcp/tools/content.read`)
    assert.equal(request.headers.authorization, 'Bearer [redacted]')
    assert.equal(request.headers['content-type'], 'application/json')
    assert.equal(request.body.type, 'json')
    const { id, ...envelope } = request.body.value
    assert.deepEqual(envelope, { jsonrpc: '2.0', method: 'content.read', params: { id: 7 } })
    assert.equal(typeof id, 'string')
    assertNoSecret(res.body)
  })

  test('a tool that needs approval is shown, not refused: approvalRequired, and whether the call carried it', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const dry = (headers: Headers = {}) =>
      app.inject({ method: 'POST', url: '/tools/s_remove?dryRun=true', headers, payload: { id: '1' } })
    const unapproved = await dry()
    assert.equal(unapproved.statusCode, 200)
    assert.deepEqual([unapproved.json().approvalRequired, unapproved.json().approved], [true, false])
    assert.equal(unapproved.json().request.method, 'DELETE')
    const approved = await dry({ 'x-toolgate-approval': 's_remove' })
    assert.deepEqual([approved.json().approvalRequired, approved.json().approved], [true, true])
    assert.equal(upstream.received.length, 0)
    const real = await app.inject({ method: 'POST', url: '/tools/s_remove', payload: { id: '1' } })
    assert.equal(real.json().code, 'TG_ERR_TOOL_APPROVAL_REQUIRED', 'a real call is still refused')
  })

  test('invalid arguments and an unconfigured upstream answer exactly like a real call; nothing is sent', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    for (const [tool, payload] of [
      ['s_update', { id: 'x', q: 5, colour: 'red' }],
      ['s_update', { id: '' }],
      ['rel_ping', {}],
    ] as const) {
      const dry = await app.inject({ method: 'POST', url: `/tools/${tool}?dryRun=true`, payload })
      const real = await app.inject({ method: 'POST', url: `/tools/${tool}`, payload })
      assert.ok(real.statusCode === 400 || real.statusCode === 502, real.body)
      assert.deepEqual([dry.statusCode, dry.json()], [real.statusCode, real.json()])
    }
    assert.equal(upstream.received.length, 0)
  })

  test('dryRun takes true/false and 1/0; any other value is a 400 with its own code; /discovery/tools too', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const post = (url: string) => app.inject({ method: 'POST', url, payload: { id: '1' } })
    for (const value of ['yes', 'TRUE', '', '2', 'true&dryRun=true']) {
      const res = await post(`/tools/s_update?dryRun=${value}`)
      assert.equal(res.statusCode, 400, value)
      assert.equal(res.json().code, 'TG_ERR_TOOL_DRY_RUN_INVALID', value)
    }
    assert.equal(upstream.received.length, 0)
    assert.equal((await post('/tools/s_update?dryRun=1')).json().dryRun, true)
    assert.equal((await post('/discovery/tools/s_update?dryRun=true')).json().dryRun, true)
    assert.equal(upstream.received.length, 0)
    assert.deepEqual((await post('/tools/s_update?dryRun=false')).json(), { ok: true })
    assert.deepEqual((await post('/tools/s_update?dryRun=0')).json(), { ok: true })
    assert.equal(upstream.received.length, 2)
  })

  test('a dry run counts as no upstream request and no tool call in /metrics', async (t) => {
    const { app } = await dryRunApp(t)
    const dry = await app.inject({ method: 'POST', url: '/tools/s_me?dryRun=true', payload: {} })
    assert.equal(dry.statusCode, 200)
    const metrics = (await app.inject('/metrics')).body
    assert.doesNotMatch(metrics, /^toolgate_upstream_requests_total\{service="s"/m)
    assert.doesNotMatch(metrics, /^toolgate_tool_calls_total\{/m)
    await app.inject({ method: 'POST', url: '/tools/s_me', payload: {} })
    const after = (await app.inject('/metrics')).body
    assert.match(after, /^toolgate_upstream_requests_total\{service="s"/m, 'the assertion can fail')
    assert.match(after, /^toolgate_tool_calls_total\{/m)
  })

  test('the same access check as a call: a client that may not call the tool may not dry-run it', async (t) => {
    const { app, upstream } = await dryRunApp(
      t,
      [
        'clients:',
        '  - id: other',
        '    token: { value: other-client-token-0001 }',
        '    tools: ["s:form"]',
      ].join('\n'),
    )
    const dry = (headers: Headers) =>
      app.inject({ method: 'POST', url: '/tools/s_me?dryRun=true', headers, payload: {} })
    assert.equal((await dry({})).statusCode, 401)
    const refused = await dry({ authorization: 'Bearer other-client-token-0001' })
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().code, 'TG_ERR_ACCESS_TOOL_NOT_ALLOWED')
    assert.equal(upstream.received.length, 0)
  })

  test('property: no configured secret appears in any dry-run answer, whatever the arguments', async (t) => {
    const { app, upstream } = await dryRunApp(t)
    const text = fc.string({ unit: 'binary', maxLength: 24 })
    const printable = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.~ '), maxLength: 16 })
    await fc.assert(
      fc.asyncProperty(
        fc.record({ id: text.filter((s) => s !== ''), q: text, trace: printable, pref: text, title: text }),
        fc.constantFrom('s_update', 's_form', 's_me'),
        async (args, tool) => {
          const payload = tool === 's_update' ? args : tool === 's_form' ? { amount: args.title.length } : {}
          const res = await app.inject({ method: 'POST', url: `/tools/${tool}?dryRun=true`, payload })
          // Lone surrogates and other unusable values are refused like a real call: still no secret.
          assertNoSecret(res.body)
          if (res.statusCode === 200) assert.match(res.body, /\[redacted\]/)
        },
      ),
      { numRuns: 150 },
    )
    assert.equal(upstream.received.length, 0)
  })
})
