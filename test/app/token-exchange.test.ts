// Issue 45: the caller's verified JWT exchanged (RFC 8693) at a real authorization server for a
// token of the upstream's audience; the upstream checks subject and audience.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { configFile, testApp } from '../helpers/app.js'
import { startAuthServer } from '../helpers/auth-server.js'
import { API_AUDIENCE, oauthSpec, startOidcServer, startProtectedApi } from '../helpers/oidc-provider.js'
import { tempDir } from '../helpers/specs-dir.js'

type After = { after(fn: () => Promise<unknown>): void }

const GATEWAY = 'https://gateway.test.example'
const LIST = `/tools/${encodeURIComponent('api:listTickets')}`
const CREATE = `/tools/${encodeURIComponent('api:createTicket')}`

/** The caller's identity provider, the exchanging authorization server, the API and the gateway between them. */
async function exchangeSetup(t: After, serviceYaml: string) {
  const callers = await startAuthServer(t)
  const oidc = await startOidcServer(
    t,
    [{ client_id: 'gateway', client_secret: 'gateway-secret-1' }],
    callers,
  )
  const api = await startProtectedApi(t, oidc)
  const specs = await tempDir(t)
  await writeFile(join(specs, 'api.json'), oauthSpec(api.url, oidc.tokenUrl))
  const yaml = [
    `publicUrl: ${GATEWAY}`,
    'services:',
    '  api:',
    serviceYaml.replaceAll('TOKEN_URL', oidc.tokenUrl),
    'clients:',
    '  - id: agent',
    `    jwt: { issuer: "${callers.issuer}", jwksUrl: "${callers.jwksUrl}" }`,
    '  - id: robot',
    '    token: { value: robot-static-token-0123456789 }',
  ].join('\n')
  const app = await testApp(t, {
    SPECS_DIR: specs,
    TOOLGATE_CONFIG: await configFile(yaml),
    SPECS_POLL_INTERVAL: '0',
  })
  const userToken = (sub: string) => callers.sign({ sub, client_id: 'agent', aud: GATEWAY })
  return { callers, oidc, api, app, userToken }
}

const EXCHANGE = `    tokenExchange: { tokenUrl: TOKEN_URL, clientId: gateway, clientSecret: { value: gateway-secret-1 }, audience: '${API_AUDIENCE}' }`

test("token exchange: the API sees the caller as subject, its own audience, the operation's scopes; cached per caller token", async (t) => {
  const { oidc, api, app, userToken } = await exchangeSetup(t, EXCHANGE)
  const alice = await userToken('alice')
  const call = (url: string, token: string) =>
    app.inject({ method: 'POST', url, payload: {}, headers: { authorization: `Bearer ${token}` } })
  const first = await call(LIST, alice)
  assert.equal(first.statusCode, 200, first.body)
  assert.deepEqual(first.json(), { sub: 'alice', client_id: 'gateway', scope: 'tickets:read' })
  assert.equal(api.calls[0]?.claims?.aud, API_AUDIENCE)
  assert.notEqual(api.calls[0]?.token, alice, 'the caller token itself never reaches the API')
  assert.equal((await call(LIST, alice)).statusCode, 200)
  assert.equal(oidc.tokenRequests(), 1, 'the same caller token: the cached exchange')
  // Another caller, and another operation's scopes: each its own exchange, never shared.
  const bob = await call(LIST, await userToken('bob'))
  assert.deepEqual(bob.json(), { sub: 'bob', client_id: 'gateway', scope: 'tickets:read' })
  const write = await call(CREATE, alice)
  assert.deepEqual(write.json(), { sub: 'alice', client_id: 'gateway', scope: 'tickets:write' })
  assert.equal(oidc.tokenRequests(), 3)
  assert.equal(new Set(api.calls.map((seen) => seen.token)).size, 3)
})

test("a caller without a JWT is refused clearly; the identity provider's refusal is a 403 with its error", async (t) => {
  const { api, app, userToken } = await exchangeSetup(
    t,
    "    tokenExchange: { tokenUrl: TOKEN_URL, clientId: gateway, clientSecret: { value: gateway-secret-1 }, audience: 'https://elsewhere.example' }",
  )
  const robot = await app.inject({
    method: 'POST',
    url: LIST,
    payload: {},
    headers: { authorization: 'Bearer robot-static-token-0123456789' },
  })
  assert.equal(robot.statusCode, 401)
  assert.equal(robot.json().code, 'TG_ERR_UPSTREAM_CALLER_TOKEN_MISSING')
  assert.match(robot.json().error, /needs the caller's verified JWT/)
  const refused = await app.inject({
    method: 'POST',
    url: LIST,
    payload: {},
    headers: { authorization: `Bearer ${await userToken('alice')}` },
  })
  assert.equal(refused.statusCode, 403, refused.body)
  assert.equal(refused.json().code, 'TG_ERR_UPSTREAM_EXCHANGE_REFUSED')
  assert.equal(refused.json().oauthError, 'invalid_target')
  assert.equal(api.calls.length, 0)
})

test('a dry run says the credential is exchanged; passthrough is an explicit opt-in', async (t) => {
  const exchange = await exchangeSetup(t, EXCHANGE)
  const alice = await exchange.userToken('alice')
  const dry = await exchange.app.inject({
    method: 'POST',
    url: `${LIST}?dryRun=true`,
    payload: {},
    headers: { authorization: `Bearer ${alice}` },
  })
  assert.deepEqual(dry.json().credentials, [{ scheme: '*', source: 'exchanged', owner: 'agent' }])
  assert.equal(dry.json().request.headers.authorization, 'Bearer [redacted]')
  assert.equal(exchange.oidc.tokenRequests(), 0)
  // forwardCallerToken: the caller's token goes as it is (an API of the gateway's own audience).
  const forward = await exchangeSetup(t, '    forwardCallerToken: true')
  const bob = await forward.userToken('bob')
  const answer = await forward.app.inject({
    method: 'POST',
    url: LIST,
    payload: {},
    headers: { authorization: `Bearer ${bob}` },
  })
  assert.equal(answer.statusCode, 401, 'the API refuses a token of another audience, as it should')
  assert.equal(forward.api.calls[0]?.token, bob)
  assert.equal(forward.oidc.tokenRequests(), 0)
})

test('through MCP tools/call the API sees the caller too', async (t) => {
  const { api, app, userToken } = await exchangeSetup(t, EXCHANGE)
  const tools = (await app.inject({ url: '/openai.json' })).json() as { function: { name: string } }[]
  const name = tools.map((tool) => tool.function.name).find((wire) => wire.includes('list'))!
  const answer = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${await userToken('carol')}`,
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
  })
  assert.equal(answer.statusCode, 200, answer.body)
  assert.equal(answer.json().result?.isError, false, answer.body)
  assert.deepEqual(answer.json().result.structuredContent, {
    sub: 'carol',
    client_id: 'gateway',
    scope: 'tickets:read',
  })
  assert.equal(api.calls.at(-1)?.claims?.sub, 'carol')
  assert.equal(api.calls.at(-1)?.claims?.aud, API_AUDIENCE)
})
