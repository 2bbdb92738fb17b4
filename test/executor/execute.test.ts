// SPEC §3: bodies, credentials, approval, validation, and every failure mapping, against real upstreams.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { Secret } from '../../src/config/secrets.js'
import type { ToolOutcome } from '../../src/executor/index.js'
import { executorFor } from '../helpers/executor.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'
import { closedPort, startUpstream } from '../helpers/upstreams.js'

const secret = (value: string) => ({ kind: 'secret' as const, secret: new Secret(value) })
const body = (outcome: ToolOutcome) => (outcome.kind === 'refusal' ? outcome.body : undefined)

describe('request bodies', () => {
  const spec = openapi({
    '/json/{id}': {
      post: {
        operationId: 'json',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['title'],
                properties: {
                  title: { type: 'string' },
                  tags: { type: 'array', items: { type: 'string' } },
                  id: { type: 'string' },
                },
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
        requestBody: {
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: {
                  amount: { type: 'integer' },
                  expand: { type: 'array', items: { type: 'string' } },
                  metadata: { type: 'object', additionalProperties: { type: 'string' } },
                  items: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: { price: { type: 'string' }, quantity: { type: 'integer' } },
                    },
                  },
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
    '/raw': {
      put: {
        operationId: 'raw',
        requestBody: {
          required: true,
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
        responses: ok,
      },
    },
    '/search': {
      get: {
        operationId: 'getWithBody',
        requestBody: {
          content: {
            'application/json': { schema: { type: 'object', properties: { q: { type: 'string' } } } },
          },
        },
        responses: ok,
      },
    },
  })

  test('JSON: flattened arguments rebuild the object; a path/body name clash goes back to each place', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const outcome = await call('s:json', { id: 7, title: 'Hi', tags: ['a'], body_id: 'inner' })
    assert.equal(outcome.status, 200)
    const [received] = upstream.received
    assert.equal(received?.target, '/json/7')
    assert.equal(received?.headers['content-type'], 'application/json')
    assert.deepEqual(JSON.parse(received!.body.toString()), { title: 'Hi', tags: ['a'], id: 'inner' })
  })

  test('form-urlencoded: scalars, repeated lists, nested objects and lists of objects in bracket notation (Stripe)', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    await call('s:form', {
      amount: 2000,
      expand: ['customer', 'invoice'],
      metadata: { order: 'A 1', 'k&y': 'v=1' },
      items: [{ price: 'p_1', quantity: 2 }],
    })
    const [received] = upstream.received
    assert.equal(received?.headers['content-type'], 'application/x-www-form-urlencoded')
    assert.equal(
      received?.body.toString(),
      'amount=2000&expand=customer&expand=invoice&metadata[order]=A%201&metadata[k%26y]=v%3D1&items[0][price]=p_1&items[0][quantity]=2',
    )
  })

  test('multipart: base64 file as bytes with its declared content type, objects as JSON parts, text parts', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff])
    const outcome = await call('s:multi', { file: png.toString('base64'), note: 'hello', meta: { a: 1 } })
    assert.equal(outcome.status, 200)
    const [received] = upstream.received
    const form = await new Response(received!.body, {
      headers: { 'content-type': String(received!.headers['content-type']) },
    }).formData()
    const file = form.get('file') as File
    assert.equal(file.type, 'image/png')
    assert.deepEqual(Buffer.from(await file.arrayBuffer()), png)
    assert.equal(form.get('note'), 'hello')
    const meta = form.get('meta') as File
    assert.equal(meta.type, 'application/json')
    assert.deepEqual(JSON.parse(await meta.text()), { a: 1 })
  })

  test('raw bytes (octet-stream) from base64 or a data: URI; non-base64 is a violation', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    await call('s:raw', { body: Buffer.from('bytes!').toString('base64') })
    await call('s:raw', {
      body: `data:application/octet-stream;base64,${Buffer.from('uri').toString('base64')}`,
    })
    assert.deepEqual(
      upstream.received.map((r) => [r.headers['content-type'], r.body.toString()]),
      [
        ['application/octet-stream', 'bytes!'],
        ['application/octet-stream', 'uri'],
      ],
    )
    const bad = await call('s:raw', { body: 'not base64 at all!' })
    assert.equal(bad.status, 400)
    assert.deepEqual(body(bad)?.violations, [{ path: '/body', message: 'must be base64-encoded bytes' }])
  })

  test('a GET with a declared body sends it (SPEC §3); an optional body with no arguments sends none', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    await call('s:getWithBody', { q: 'x' })
    await call('s:getWithBody', {})
    assert.deepEqual(
      upstream.received.map((r) => [r.method, r.body.toString()]),
      [
        ['GET', '{"q":"x"}'],
        ['GET', ''],
      ],
    )
  })
})

test('null: a required JSON body that admits null is sent as null; an optional one is left out', async (t) => {
  const upstream = await startUpstream(t)
  const body = (required: boolean) => ({
    required,
    content: { 'application/json': { schema: { type: ['object', 'null'], additionalProperties: true } } },
  })
  const catalog = await catalogOf({
    's.yaml': openapi({
      '/required': { put: { operationId: 'required', requestBody: body(true), responses: ok } },
      '/optional': { put: { operationId: 'optional', requestBody: body(false), responses: ok } },
    }),
  })
  const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
  const [required, optional] = ['s:required', 's:optional'].map(
    (id) => catalog.tools.find((x) => x.id === id)!,
  )
  const bodyKey = (tool: typeof required) =>
    Object.entries(tool!.binding.arguments).find(([, target]) => 'whole' in target)![0]
  assert.equal((await call('s:required', { [bodyKey(required)]: null })).status, 200)
  assert.equal((await call('s:optional', { [bodyKey(optional)]: null })).status, 200)
  assert.deepEqual(
    upstream.received.map((r) => [r.target, r.body.toString()]),
    [
      ['/required', 'null'],
      ['/optional', ''],
    ],
  )
})

test('property: a required field that admits null, given null, arrives as null; an optional field given null is left out (issue 42 class 7)', async (t) => {
  const upstream = await startUpstream(t)
  const fields = fc.uniqueArray(
    fc.record({ name: fc.stringMatching(/^[a-z]{1,10}$/), required: fc.boolean(), nullable: fc.boolean() }),
    { minLength: 1, maxLength: 6, selector: (f) => f.name },
  )
  await fc.assert(
    fc.asyncProperty(fields, async (declared) => {
      const schema = {
        type: 'object',
        properties: Object.fromEntries(
          declared.map((f) => [f.name, { type: f.nullable ? ['string', 'null'] : 'string' }]),
        ),
        required: declared.filter((f) => f.required).map((f) => f.name),
      }
      const catalog = await catalogOf({
        's.yaml': openapi({
          '/leads': {
            post: {
              operationId: 'add',
              requestBody: { required: true, content: { 'application/json': { schema } } },
              responses: ok,
            },
          },
        }),
      })
      const args: Record<string, unknown> = {}
      const expected: Record<string, unknown> = {}
      for (const f of declared) {
        args[f.name] = f.nullable ? null : 'x'
        if (!f.nullable || f.required) expected[f.name] = args[f.name]
      }
      const outcome = await executorFor(t, catalog, { services: { s: { upstream: upstream.url } } }).call(
        's:add',
        args,
      )
      assert.equal(outcome.status, 200, JSON.stringify(outcome))
      assert.deepEqual(JSON.parse(upstream.received.at(-1)!.body.toString()), expected)
    }),
    { numRuns: 100 },
  )
})

describe('validation (SPEC §3 step 1)', () => {
  test('400 listing every violation by path; nothing is sent', async (t) => {
    const upstream = await startUpstream(t)
    const catalog = await catalogOf({
      's.yaml': openapi({
        '/t': {
          post: {
            operationId: 'create',
            parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', maximum: 10 } }],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['title', 'customer'],
                    properties: {
                      title: { type: 'string', minLength: 3 },
                      priority: { enum: ['low', 'high'] },
                      customer: {
                        type: 'object',
                        required: ['email'],
                        properties: { email: { type: 'string', format: 'email' } },
                      },
                    },
                  },
                },
              },
            },
            responses: ok,
          },
        },
      }),
    })
    const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    const outcome = await call('s:create', {
      limit: 50,
      title: 'x',
      priority: 'urgent',
      customer: { email: 'nope' },
      colour: 'red',
    })
    assert.equal(outcome.status, 400)
    assert.equal(body(outcome)?.code, 'TG_ERR_TOOL_ARGUMENTS_INVALID')
    assert.deepEqual(
      new Set(((body(outcome)?.violations ?? []) as { path: string }[]).map((v) => v.path)),
      new Set(['/limit', '/title', '/priority', '/customer/email', '/colour']),
    )
    assert.equal(upstream.received.length, 0)
  })

  test('common model slips are coerced: "5" for 5, one value for a list', async (t) => {
    const upstream = await startUpstream(t)
    const catalog = await catalogOf({
      's.yaml': openapi({
        '/t': {
          get: {
            operationId: 'list',
            parameters: [
              { name: 'limit', in: 'query', schema: { type: 'integer' } },
              { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
            ],
            responses: ok,
          },
        },
      }),
    })
    const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    assert.equal((await call('s:list', { limit: '5', tag: 'vip' })).status, 200)
    assert.equal(upstream.received[0]?.target, '/t?limit=5&tag=vip')
  })
})

describe('credentials (SPEC §3 step 3)', () => {
  const spec = openapi(
    {
      '/key': { get: { operationId: 'key', security: [{ key: [] }], responses: ok } },
      '/query': { get: { operationId: 'query', security: [{ queryKey: [] }], responses: ok } },
      '/cookie': {
        get: {
          operationId: 'cookie',
          security: [{ cookieKey: [] }],
          parameters: [{ name: 'pref', in: 'cookie', schema: { type: 'string' } }],
          responses: ok,
        },
      },
      '/basic': { get: { operationId: 'basic', security: [{ basic: [] }], responses: ok } },
      '/bearer': { get: { operationId: 'bearer', security: [{ token: [] }], responses: ok } },
      '/oauth': { get: { operationId: 'oauth', security: [{ oauth: ['read'] }], responses: ok } },
      '/either': {
        get: { operationId: 'either', security: [{ missing: [] }, { token: [] }], responses: ok },
      },
      '/public': {
        get: {
          operationId: 'public',
          security: [],
          parameters: ['Authorization', 'Host', 'Cookie'].map((name) => ({
            name,
            in: 'header',
            schema: { type: 'string' },
          })),
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
          oauth: { type: 'oauth2', flows: {} },
          missing: { type: 'apiKey', in: 'header', name: 'X-Missing' },
        },
      },
    },
  )
  const credentials = {
    s: {
      key: secret('k-123'),
      queryKey: secret('q 456&'),
      cookieKey: secret('c789'),
      basic: { kind: 'basic' as const, username: new Secret('demo'), password: new Secret('p@ss') },
      token: secret('t-abc'),
      oauth: secret('o-xyz'),
    },
  }

  test('per scheme type: API key in header, query, cookie; basic; bearer; oauth2 token; first satisfiable alternative', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
      credentials,
    })
    for (const id of ['key', 'query', 'cookie', 'basic', 'bearer', 'oauth', 'either'])
      await call(`s:${id}`, id === 'cookie' ? { pref: 'dark' } : {})
    const [key, query, cookie, basic, bearer, oauth, either] = upstream.received
    assert.equal(key?.headers['x-api-key'], 'k-123')
    assert.equal(query?.target, '/query?api_key=q%20456%26')
    assert.equal(cookie?.headers.cookie, 'pref=dark; sid=c789')
    assert.equal(basic?.headers.authorization, `Basic ${Buffer.from('demo:p@ss').toString('base64')}`)
    assert.equal(bearer?.headers.authorization, 'Bearer t-abc')
    assert.equal(oauth?.headers.authorization, 'Bearer o-xyz')
    assert.equal(either?.headers.authorization, 'Bearer t-abc')
    assert.equal(either?.headers['x-missing'], undefined)
  })

  test('a caller cannot set Authorization, Host or Cookie through arguments, nor see credentials in a refusal', async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
      credentials,
    })
    const authorization = await call('s:public', { Authorization: 'Bearer stolen' })
    assert.equal(
      authorization.status,
      400,
      'OpenAPI ignores an Authorization header parameter: it is no argument',
    )
    // Issue 42 class 7: Host and Cookie are no arguments either (the catalog says so), so the call
    // is refused rather than sent with the arguments silently dropped.
    assert.equal((await call('s:public', { Host: 'evil.example.com', Cookie: 'admin=1' })).status, 400)
    assert.equal(upstream.received.length, 0)
    assert.equal((await call('s:public', {})).status, 200)
    const [received] = upstream.received
    assert.equal(received?.headers.host, new URL(upstream.url).host)
    assert.equal(received?.headers.cookie, undefined)
    assert.equal(received?.headers.authorization, undefined)
    const refused = await call('s:key', { extra: 1 })
    assert.doesNotMatch(JSON.stringify(refused), /k-123/)
  })

  test("Opal's access token replaces the configured bearer when the service forwards it", async (t) => {
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url, forwardAccessToken: true } },
      credentials,
    })
    await call('s:bearer', {}, { accessToken: 'opal-user-token' })
    assert.equal(upstream.received[0]?.headers.authorization, 'Bearer opal-user-token')
  })
})

describe('approval (SPEC §3 step 4)', () => {
  const spec = openapi({
    '/t/{id}': {
      delete: {
        operationId: 'remove',
        'x-cli-safety': { requiresApproval: true },
        parameters: [{ name: 'id', in: 'path', required: true }],
        responses: ok,
      },
    },
    '/pay': { post: { operationId: 'pay', 'x-openai-isConsequential': true, responses: ok } },
  })

  test('refused with 403 saying how to approve; granted by the call (wire name or tool ID) or by policy', async (t) => {
    const upstream = await startUpstream(t)
    const catalog = await catalogOf({ 's.yaml': spec })
    const { call } = executorFor(t, catalog, {
      services: { s: { upstream: upstream.url } },
      policies: [{ tools: ['s:pay'], approved: true }],
    })
    const refused = await call('s:remove', { id: '1' })
    assert.equal(refused.status, 403)
    assert.equal(body(refused)?.code, 'TG_ERR_TOOL_APPROVAL_REQUIRED')
    assert.match(String(body(refused)?.error), /X-Toolgate-Approval: s_remove/)
    assert.equal((await call('s:remove', { id: '1' }, { approval: 'some_other_tool' })).status, 403)
    assert.equal(upstream.received.length, 0)
    assert.equal((await call('s:remove', { id: '1' }, { approval: 's_remove' })).status, 200)
    assert.equal((await call('s:remove', { id: '2' }, { approval: 's:remove' })).status, 200)
    assert.equal((await call('s:pay', {})).status, 200)
    assert.equal(upstream.received.length, 3)
  })
})

describe('upstream answers and failures (SPEC §3 steps 5 and 6)', () => {
  const spec = openapi({
    '/r': { get: { operationId: 'read', responses: ok }, post: { operationId: 'write', responses: ok } },
    '/slow': { get: { operationId: 'slow', 'x-cli-retry': false, responses: ok } },
  })

  test('status and body as they are: JSON, text, 201 with Location, 204, 202, upstream 404 and 500', async (t) => {
    const answers = [
      [200, 'application/json', '{"a":1}'],
      [200, 'text/plain; charset=utf-8', 'plain words'],
      [201, 'application/json', '{"id":"n1"}'],
      [204, undefined, ''],
      [202, undefined, ''],
      [404, 'application/problem+json', '{"title":"nope"}'],
      [500, 'text/html', '<h1>boom</h1>'],
    ] as const
    let i = 0
    const upstream = await startUpstream(t, (_r, res) => {
      const [status, type, text] = answers[i++]!
      res.writeHead(status, {
        ...(type ? { 'content-type': type } : {}),
        ...(status === 201 ? { location: '/r/n1' } : {}),
      })
      res.end(text)
    })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const outcomes = []
    for (const _ of answers) outcomes.push(await call('s:read', {}))
    const summary = outcomes.map((o) =>
      o.kind === 'answer' ? [o.status, o.body.type] : [o.status, 'refusal'],
    )
    assert.deepEqual(summary, [
      [200, 'json'],
      [200, 'text'],
      [201, 'json'],
      [204, 'empty'],
      [202, 'empty'],
      [404, 'json'],
      [500, 'text'],
    ])
    const created = outcomes[2]!
    assert.equal(created.headers.location, '/r/n1')
    assert.equal(
      created.kind === 'answer' && created.body.type === 'json' && created.body.bytes.toString(),
      '{"id":"n1"}',
    )
  })

  test('a binary answer is base64 with its content type', async (t) => {
    const bytes = Buffer.from([0, 1, 2, 253, 254, 255])
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(200, { 'content-type': 'image/png' })
      res.end(bytes)
    })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const outcome = await call('s:read', {})
    assert.deepEqual(outcome.kind === 'answer' && outcome.body, {
      type: 'binary',
      base64: bytes.toString('base64'),
      contentType: 'image/png',
      bytes: 6,
    })
  })

  test('a large body under the cap arrives whole; over the cap it is a 502 naming the limit', async (t) => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a')
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(big)
    })
    const catalog = await catalogOf({ 's.yaml': spec })
    const roomy = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    const whole = await roomy.call('s:read', {})
    assert.equal(whole.kind === 'answer' && whole.body.type === 'text' && whole.body.text.length, big.length)
    const tight = executorFor(t, catalog, {
      services: { s: { upstream: upstream.url } },
      client: { maxResponseBytes: 1024 * 1024 },
    })
    const refused = await tight.call('s:read', {})
    assert.equal(refused.status, 502)
    assert.equal(body(refused)?.code, 'TG_ERR_UPSTREAM_RESPONSE_TOO_LARGE')
  })

  test('an unreachable upstream is a 502 naming the tool and origin', async (t) => {
    const port = await closedPort()
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: `http://127.0.0.1:${port}` } },
    })
    const outcome = await call('s:write', {})
    assert.equal(outcome.status, 502)
    assert.equal(body(outcome)?.code, 'TG_ERR_UPSTREAM_UNREACHABLE')
    assert.equal(body(outcome)?.tool, 's_write')
    assert.equal(body(outcome)?.upstream, `http://127.0.0.1:${port}`)
    assert.match(String(body(outcome)?.error), /ECONNREFUSED/)
  })

  test('an upstream that never answers is a 504 after the timeout, and the call is not retried', {
    timeout: HANG_BOUND_MS,
  }, async (t) => {
    const upstream = await startUpstream(t, async () => {
      await sleep(60_000) // never answers within the test; the socket is destroyed at close
    })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url, timeoutMs: 300 } },
    })
    const outcome = await call('s:read', {})
    assert.equal(outcome.status, 504)
    assert.equal(body(outcome)?.code, 'TG_ERR_UPSTREAM_TIMEOUT')
    assert.equal(upstream.received.length, 1)
  })

  test('a connection reset is retried for an idempotent GET, never for a POST', async (t) => {
    let resets = 0
    const upstream = await startUpstream(t, (received, res) => {
      if (resets++ % 2 === 0) {
        res.socket?.destroy()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ method: received.method }))
    })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const read = await call('s:read', {})
    assert.equal(read.status, 200)
    assert.equal(read.kind === 'answer' && read.attempts, 2)
    const write = await call('s:write', {})
    assert.equal(write.status, 502)
    assert.equal(upstream.received.filter((r) => r.method === 'POST').length, 1)
  })

  test('the circuit opens after consecutive failures: 503 with Retry-After at once, then a half-open probe', async (t) => {
    const port = await closedPort()
    let now = 1_000_000
    const catalog = await catalogOf({ 's.yaml': spec })
    const { call, client } = executorFor(t, catalog, {
      services: { s: { upstream: `http://127.0.0.1:${port}` } },
      client: { breaker: { failureThreshold: 3, cooldownMs: 10_000 }, now: () => now },
    })
    for (let i = 0; i < 3; i++) assert.equal((await call('s:write', {})).status, 502)
    const open = await call('s:write', {})
    assert.equal(open.status, 503)
    assert.equal(body(open)?.code, 'TG_ERR_UPSTREAM_CIRCUIT_OPEN')
    assert.equal(open.headers['retry-after'], '10')
    assert.deepEqual(client.breaker.states(), { [`http://127.0.0.1:${port}`]: 'open' })
    now += 10_001
    assert.equal((await call('s:write', {})).status, 502, 'the half-open probe goes through and fails')
    assert.equal((await call('s:write', {})).status, 503, 'open again')
  })

  test('a service with only relative servers and no configured upstream is refused clearly', async (t) => {
    const catalog = await catalogOf({
      's.yaml': openapi(
        { '/x': { get: { operationId: 'x', responses: ok } } },
        { servers: [{ url: '/v1' }] },
      ),
    })
    const { call } = executorFor(t, catalog, { services: {} })
    const outcome = await call('s:x', {})
    assert.equal(outcome.status, 502)
    assert.match(String(body(outcome)?.error), /set services\.s\.upstream/)
  })
})
