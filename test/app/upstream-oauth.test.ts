// Issue 45: OAuth2 client-credentials tokens the gateway fetches, against a real authorization
// server (oidc-provider) and an API that verifies every token against its JWKS.
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import type { ClientMetadata } from 'oidc-provider'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { configFile, testApp } from '../helpers/app.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { type OidcServer, oauthSpec, startOidcServer, startProtectedApi } from '../helpers/oidc-provider.js'
import { REDIS_URL, redisForTest } from '../helpers/redis.js'
import { tempDir } from '../helpers/specs-dir.js'

type After = { after(fn: () => Promise<unknown>): void }

const LIST = `/tools/${encodeURIComponent('api:listTickets')}`
const CREATE = `/tools/${encodeURIComponent('api:createTicket')}`

const GATEWAY_CLIENTS: ClientMetadata[] = [
  { client_id: 'gateway', client_secret: 'gateway-secret-1' },
  {
    client_id: 'gateway-post',
    client_secret: 'gateway-secret-2',
    token_endpoint_auth_method: 'client_secret_post',
  },
]

/** The spec of the protected API in a fresh specs directory, its oauth2 scheme pointing at `tokenUrl`. */
async function specsFor(t: After, apiUrl: string, tokenUrl: string): Promise<string> {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'api.json'), oauthSpec(apiUrl, tokenUrl))
  return dir
}

async function gateway(t: After, specsDir: string, credentialYaml: string, env: Record<string, string> = {}) {
  const yaml = `services:\n  api:\n    credentials:\n      oauth: ${credentialYaml}\n${env.EXTRA_YAML ?? ''}`
  const { EXTRA_YAML: _extra, ...rest } = env
  return testApp(t, {
    SPECS_DIR: specsDir,
    TOOLGATE_CONFIG: await configFile(yaml),
    SPECS_POLL_INTERVAL: '0',
    ...rest,
  })
}

async function oauthSetup(
  t: After,
  credentialYaml = '{ clientId: gateway, clientSecret: { value: gateway-secret-1 } }',
) {
  const oidc = await startOidcServer(t, GATEWAY_CLIENTS)
  const api = await startProtectedApi(t, oidc)
  const specs = await specsFor(t, api.url, oidc.tokenUrl)
  const app = await gateway(t, specs, credentialYaml)
  return { oidc, api, app, specs }
}

test('client credentials end to end: a token fetched on first use, verified by the API, cached per scopes', async (t) => {
  const { oidc, api, app } = await oauthSetup(t)
  const first = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(first.statusCode, 200, first.body)
  assert.deepEqual(first.json(), { sub: 'gateway', client_id: 'gateway', scope: 'tickets:read' })
  const second = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(second.statusCode, 200)
  assert.equal(oidc.tokenRequests(), 1, 'the second call used the cached token')
  assert.equal(api.calls[0]?.token, api.calls[1]?.token)
  // Another operation asks for other scopes: another token, scoped to it.
  const created = await app.inject({ method: 'POST', url: CREATE, payload: {} })
  assert.equal(created.statusCode, 200, created.body)
  assert.equal(created.json().scope, 'tickets:write')
  assert.equal(oidc.tokenRequests(), 2)
  assert.notEqual(api.calls[2]?.token, api.calls[0]?.token)
})

test('client_secret_post and configured scopes and audience', async (t) => {
  const { oidc, app } = await oauthSetup(
    t,
    `{ clientId: gateway-post, clientSecret: { value: gateway-secret-2 }, auth: client_secret_post, scopes: [tickets:read, tickets:write], audience: 'https://api.test.example' }`,
  )
  const answer = await app.inject({ method: 'POST', url: CREATE, payload: {} })
  assert.equal(answer.statusCode, 200, answer.body)
  assert.deepEqual(answer.json(), {
    sub: 'gateway-post',
    client_id: 'gateway-post',
    scope: 'tickets:read tickets:write',
  })
  assert.equal((await app.inject({ method: 'POST', url: LIST, payload: {} })).statusCode, 200)
  assert.equal(oidc.tokenRequests(), 1, 'configured scopes: one token for both operations')
})

test('a hundred concurrent first calls make one token request', { timeout: HANG_BOUND_MS }, async (t) => {
  const { oidc, api, app } = await oauthSetup(t)
  const answers = await Promise.all(
    Array.from({ length: 100 }, () => app.inject({ method: 'POST', url: LIST, payload: {} })),
  )
  assert.deepEqual(new Set(answers.map((answer) => answer.statusCode)), new Set([200]))
  assert.equal(oidc.tokenRequests(), 1)
  assert.equal(new Set(api.calls.map((call) => call.token)).size, 1)
})

test('a 401 on a cached token refreshes it once; an idempotent tool is retried, another answers the 401', async (t) => {
  const { oidc, api, app } = await oauthSetup(
    t,
    '{ clientId: gateway, clientSecret: { value: gateway-secret-1 }, scopes: [tickets:read, tickets:write] }',
  )
  assert.equal((await app.inject({ method: 'POST', url: LIST, payload: {} })).statusCode, 200)
  const cached = api.calls[0]!.token!
  api.revoked.add(cached)
  const retried = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(retried.statusCode, 200, retried.body)
  assert.equal(oidc.tokenRequests(), 2)
  assert.deepEqual(
    api.calls.slice(1).map((call) => [call.status, call.token === cached]),
    [
      [401, true],
      [200, false],
    ],
  )
  // A POST is not idempotent: its 401 is answered, the token still renewed for the next call.
  api.revoked.add(api.calls.at(-1)!.token!)
  const refused = await app.inject({ method: 'POST', url: CREATE, payload: {} })
  assert.equal(refused.statusCode, 401)
  assert.equal(oidc.tokenRequests(), 3)
  const calls = api.calls.length
  const next = await app.inject({ method: 'POST', url: CREATE, payload: {} })
  assert.equal(next.statusCode, 200)
  assert.equal(api.calls.length, calls + 1, 'sent once')
  assert.equal(oidc.tokenRequests(), 3, 'with the token renewed after the 401')
  // An API that refuses every token: one refresh and one retry, then its 401 is the answer.
  api.revoked.add('*')
  const [tokensBefore, callsBefore] = [oidc.tokenRequests(), api.calls.length]
  const stubborn = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(stubborn.statusCode, 401)
  assert.equal(oidc.tokenRequests(), tokensBefore + 1)
  assert.equal(api.calls.length, callsBefore + 2)
})

test('the authorization server refusing the client: 502 naming the endpoint and its OAuth error, nothing cached, the API never called', async (t) => {
  const { oidc, api, app } = await oauthSetup(
    t,
    '{ clientId: gateway, clientSecret: { value: wrong-secret } }',
  )
  for (const attempt of [1, 2]) {
    const answer = await app.inject({ method: 'POST', url: LIST, payload: {} })
    assert.equal(answer.statusCode, 502)
    const body = answer.json()
    assert.equal(body.code, 'TG_ERR_UPSTREAM_TOKEN_REFUSED')
    assert.equal(body.oauthError, 'invalid_client')
    assert.equal(body.tokenEndpoint, oidc.tokenUrl)
    assert.match(body.error, /services\.api\.credentials\.oauth/)
    assert.doesNotMatch(answer.body, /wrong-secret/)
    assert.equal(oidc.tokenRequests(), attempt, 'a refusal is not cached')
  }
  assert.equal(api.calls.length, 0)
})

test('an audience the authorization server does not serve: 502 with its invalid_target', async (t) => {
  const { app, api } = await oauthSetup(
    t,
    "{ clientId: gateway, clientSecret: { value: gateway-secret-1 }, audience: 'https://other.example' }",
  )
  const answer = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(answer.statusCode, 502)
  assert.equal(answer.json().code, 'TG_ERR_UPSTREAM_TOKEN_REFUSED')
  assert.equal(answer.json().oauthError, 'invalid_target')
  assert.equal(api.calls.length, 0)
})

test('a dry run shows Bearer [redacted] and fetches no token', async (t) => {
  const { oidc, app } = await oauthSetup(t)
  const answer = await app.inject({ method: 'POST', url: `${LIST}?dryRun=true`, payload: {} })
  assert.equal(answer.statusCode, 200, answer.body)
  assert.equal(answer.json().request.headers.authorization, 'Bearer [redacted]')
  assert.equal(oidc.tokenRequests(), 0)
})

test('token requests and failures are counted per endpoint in /metrics', async (t) => {
  const { oidc, app } = await oauthSetup(t)
  await app.inject({ method: 'POST', url: LIST, payload: {} })
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
  assert.match(
    text,
    new RegExp(`toolgate_upstream_token_requests_total\\{endpoint="${oidc.tokenUrl}",result="ok"\\} 1`),
  )
})

/** How the misbehaving token endpoint answers. */
type BadMode =
  | 'html'
  | 'oauth-error'
  | 'no-token'
  | 'negative-expiry'
  | 'absurd-expiry'
  | 'huge-token'
  | 'slow'
  | 'server-error'
  | 'good'

const BAD_ANSWERS: Record<Exclude<BadMode, 'slow' | 'good'>, [number, string, string]> = {
  html: [200, 'text/html', '<html><body>Sign in</body></html>'],
  'oauth-error': [400, 'application/json', '{"error":"unauthorized_client","error_description":"nope"}'],
  'no-token': [200, 'application/json', '{"token_type":"Bearer","expires_in":3600}'],
  'negative-expiry': [
    200,
    'application/json',
    '{"access_token":"abc","token_type":"Bearer","expires_in":-5}',
  ],
  'absurd-expiry': [
    200,
    'application/json',
    '{"access_token":"abc","token_type":"Bearer","expires_in":1e12}',
  ],
  'huge-token': [200, 'application/json', `{"access_token":"${'a'.repeat(1024 * 1024)}","expires_in":3600}`],
  'server-error': [503, 'text/plain', 'down for maintenance'],
}

/** A real HTTP token endpoint that answers as `mode` says (the good mode issues opaque tokens). */
async function startBadTokenEndpoint(t: After) {
  const state = { mode: 'good' as BadMode, requests: 0 }
  const sockets = new Set<Socket>()
  const hanging: ServerResponse[] = []
  const server = createServer((req, res) => {
    req.resume()
    state.requests++
    if (state.mode === 'slow') return void hanging.push(res)
    if (state.mode === 'good') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return void res.end(
        JSON.stringify({ access_token: `opaque-${state.requests}`, token_type: 'Bearer', expires_in: 600 }),
      )
    }
    const [status, type, body] = BAD_ANSWERS[state.mode]
    res.writeHead(status, { 'content-type': type })
    res.end(body)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`, state }
}

test("bad token answers: 502 with the token endpoint's own code, nothing cached, the upstream breaker untouched", {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const endpoint = await startBadTokenEndpoint(t)
  const { startUpstream } = await import('../helpers/upstreams.js')
  const api = await startUpstream(t)
  const specs = await specsFor(t, api.url, endpoint.url)
  const app = await gateway(t, specs, '{ clientId: gateway, clientSecret: { value: gateway-secret-1 } }', {
    EXTRA_YAML: 'upstream:\n  tokenTimeoutMs: 300\n  breaker: { failureThreshold: 2 }\n',
  })
  const expected: Record<Exclude<BadMode, 'good'>, [string, RegExp]> = {
    html: ['TG_ERR_UPSTREAM_TOKEN_INVALID', /not a JSON object \(content type text\/html\)/],
    'oauth-error': ['TG_ERR_UPSTREAM_TOKEN_REFUSED', /OAuth error unauthorized_client/],
    'no-token': ['TG_ERR_UPSTREAM_TOKEN_INVALID', /no access_token/],
    'negative-expiry': ['TG_ERR_UPSTREAM_TOKEN_INVALID', /expires_in/],
    'absurd-expiry': ['TG_ERR_UPSTREAM_TOKEN_INVALID', /expires_in/],
    'huge-token': ['TG_ERR_UPSTREAM_TOKEN_INVALID', /larger than 65536 bytes/],
    slow: ['TG_ERR_UPSTREAM_TOKEN_UNREACHABLE', /no answer within 300 ms/],
    'server-error': ['TG_ERR_UPSTREAM_TOKEN_UNREACHABLE', /HTTP 503/],
  }
  for (const [mode, [code, detail]] of Object.entries(expected)) {
    endpoint.state.mode = mode as BadMode
    const before = endpoint.state.requests
    const answer = await app.inject({ method: 'POST', url: LIST, payload: {} })
    assert.equal(answer.statusCode, 502, mode)
    const body = answer.json()
    assert.equal(body.code, code, mode)
    assert.match(body.error, detail, mode)
    assert.equal(body.tokenEndpoint, endpoint.url, mode)
    assert.equal(endpoint.state.requests, before + 1, `${mode}: the token endpoint was asked`)
  }
  assert.equal(api.received.length, 0, 'the API was never called without a token')
  // Nothing was cached, and the upstream's circuit (2 failures open it) never counted the token failures.
  endpoint.state.mode = 'good'
  const good = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(good.statusCode, 200, good.body)
  assert.equal(api.received[0]?.headers.authorization, `Bearer opaque-${endpoint.state.requests}`)
})

test('the token endpoint down: 502 TG_ERR_UPSTREAM_TOKEN_UNREACHABLE', async (t) => {
  const { startUpstream } = await import('../helpers/upstreams.js')
  const api = await startUpstream(t)
  const closed = await startUpstream(t)
  await closed.close()
  const specs = await specsFor(t, api.url, `${closed.url}/token`)
  const app = await gateway(t, specs, '{ clientId: gateway, clientSecret: { value: gateway-secret-1 } }')
  const answer = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(answer.statusCode, 502)
  assert.equal(answer.json().code, 'TG_ERR_UPSTREAM_TOKEN_UNREACHABLE')
  assert.match(answer.json().error, /ECONNREFUSED/)
})

test('configuration mistakes are refused at start with their path', async (t) => {
  const oidc: OidcServer = await startOidcServer(t, GATEWAY_CLIENTS)
  const specs = await specsFor(t, 'http://127.0.0.1:9', oidc.tokenUrl)
  const load = async (credentials: string) =>
    loadConfig(
      {
        SPECS_DIR: specs,
        LOG_LEVEL: 'silent',
        SPECS_POLL_INTERVAL: '0',
        TOOLGATE_CONFIG: await configFile(`services:\n  api:\n    credentials:\n${credentials}`),
      },
      (path) => readFile(path, 'utf8'),
    )
  await assert.rejects(
    load('      oauth: { clientId: gateway }\n'),
    /services\.api\.credentials\.oauth\.clientSecret: a clientId needs its clientSecret/,
  )
  await assert.rejects(
    load('      oauth: { clientId: gateway, clientSecret: { value: s }, tokenUrl: ftp://x/token }\n'),
    /services\.api\.credentials\.oauth\.tokenUrl: must be an http:\/\/ or https:\/\/ URL/,
  )
  await assert.rejects(
    load('      oauth: { clientId: gateway, clientSecret: { value: s }, auth: private_key_jwt }\n'),
    /services\.api\.credentials\.oauth\.auth: must be one of client_secret_basic, client_secret_post/,
  )
  // Which schemes the spec has is known once the catalog is built: the start stops there.
  const unknownScheme = await load('      nope: { clientId: gateway, clientSecret: { value: s } }\n')
  await assert.rejects(
    buildApp({ config: unknownScheme }),
    /services\.api\.credentials\.nope: the spec defines no security scheme nope \(it defines oauth\)/,
  )
})

test('tokens are shared between replicas through Redis', async (t) => {
  const oidc = await startOidcServer(t, GATEWAY_CLIENTS)
  const api = await startProtectedApi(t, oidc)
  const specs = await specsFor(t, api.url, oidc.tokenUrl)
  const { client: redis, prefix } = await redisForTest(t)
  const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix }
  const credential = '{ clientId: gateway, clientSecret: { value: gateway-secret-1 } }'
  const first = await gateway(t, specs, credential, env)
  const second = await gateway(t, specs, credential, env)
  assert.equal((await first.inject({ method: 'POST', url: LIST, payload: {} })).statusCode, 200)
  assert.equal((await second.inject({ method: 'POST', url: LIST, payload: {} })).statusCode, 200)
  assert.equal(oidc.tokenRequests(), 1, "the second replica took the first one's token")
  assert.equal(api.calls[0]?.token, api.calls[1]?.token)
  const stored = await redis.keys(`${prefix}tokens:*`)
  assert.equal(stored.length, 1)
  assert.doesNotMatch(stored[0]!, /gateway-secret/)
})

test('a reloaded spec that drops the configured scheme keeps serving its last good version', async (t) => {
  const { app, specs, oidc, api } = await oauthSetup(t)
  const spec = JSON.parse(oauthSpec(api.url, oidc.tokenUrl))
  spec.components.securitySchemes = { other: { type: 'http', scheme: 'bearer' } }
  spec.paths['/tickets'].get.security = [{ other: [] }]
  spec.paths['/tickets'].post.security = [{ other: [] }]
  await writeFile(join(specs, 'api.json'), JSON.stringify(spec))
  const record = await app.catalogStore.reload('manual')
  assert.deepEqual(record.stale, ['api.json'])
  const problem = app.catalogStore
    .current()
    .catalog.problems.find((found) => found.code === 'credentials-scheme-mismatch')
  assert.match(
    problem?.message ?? '',
    /services\.api\.credentials\.oauth: the spec defines no security scheme oauth \(it defines other\)/,
  )
  const answer = await app.inject({ method: 'POST', url: LIST, payload: {} })
  assert.equal(answer.statusCode, 200, 'the last good version, with its oauth scheme, still serves')
})

test('no token, client secret or caller secret reaches a log line', async (t) => {
  const oidc = await startOidcServer(t, GATEWAY_CLIENTS)
  const api = await startProtectedApi(t, oidc)
  const specs = await specsFor(t, api.url, oidc.tokenUrl)
  const lines: string[] = []
  const { loggedApp } = await import('../helpers/app.js')
  const app = await loggedApp(t, lines, {
    SPECS_DIR: specs,
    SPECS_POLL_INTERVAL: '0',
    TOOLGATE_CONFIG: await configFile(
      'services:\n  api:\n    credentials:\n      oauth: { clientId: gateway, clientSecret: { value: gateway-secret-1 } }\n',
    ),
  })
  assert.equal((await app.inject({ method: 'POST', url: LIST, payload: {} })).statusCode, 200)
  api.revoked.add('*')
  assert.equal((await app.inject({ method: 'POST', url: LIST, payload: {} })).statusCode, 401)
  const tokens = api.calls.map((call) => call.token!)
  assert.ok(tokens.length >= 2)
  const logged = lines.join('')
  assert.ok(logged.includes('tool call'), 'the calls were logged')
  for (const secret of [...tokens, 'gateway-secret-1'])
    assert.ok(!logged.includes(secret), 'a secret was logged')
})
