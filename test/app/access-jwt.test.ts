// JWT clients (issue 13) against a real JWKS server started by the test, keys made with jose.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js'
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { base64url, SignJWT } from 'jose'
import { exampleApp } from '../helpers/app.js'
import { type AuthServer, startAuthServer } from '../helpers/auth-server.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { closedPort } from '../helpers/upstreams.js'

const GATEWAY = 'https://gateway.test'

function clientsYaml(auth: AuthServer, extra = '') {
  return `publicUrl: ${GATEWAY}
clients:
  - id: agent-a
    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}", algorithms: [RS256, ES256], keysCooldownSeconds: 1 }
    tools: ["tickets:*"]
  - id: agent-b
    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}", keysCooldownSeconds: 1 }
    tools: ["billing:*"]
  - id: scoped
    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}", scopes: [tools.call, tickets.read] }
${extra}`
}

async function jwtApp(t: Parameters<typeof exampleApp>[0], extra = '') {
  const auth = await startAuthServer(t)
  const { app } = await exampleApp(t, clientsYaml(auth, extra))
  return { app, auth }
}

function getTicket(app: FastifyInstance, token: string | undefined, headers: InjectOptions['headers'] = {}) {
  return app.inject({
    method: 'POST',
    url: '/tools/tickets_get_ticket',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    payload: { ticketId: 'T-1001' },
  })
}

const now = () => Math.floor(Date.now() / 1000)

describe('JWT clients', () => {
  test('RS256 and ES256 access tokens for the gateway answer; the token names the client', async (t) => {
    const { app, auth } = await jwtApp(t)
    for (const alg of ['RS256', 'ES256'] as const) {
      const token = await auth.sign({ client_id: 'agent-a', aud: GATEWAY }, { alg })
      const res = await getTicket(app, token)
      assert.equal(res.statusCode, 200, `${alg}: ${res.body}`)
    }
    const mcpAudience = await auth.sign({ client_id: 'agent-a', aud: `${GATEWAY}/mcp` })
    assert.equal((await getTicket(app, mcpAudience)).statusCode, 200, 'the MCP resource is an audience too')
  })

  test('forged, expired, early, foreign and misaddressed tokens are each a 401 naming why', async (t) => {
    const { app, auth } = await jwtApp(t)
    const claims = { client_id: 'agent-a', aud: GATEWAY }
    const header = (value: object) => base64url.encode(JSON.stringify(value))
    const unsigned = `${header({ alg: 'none', typ: 'JWT' })}.${header({ ...claims, iss: auth.issuer, exp: now() + 300 })}.`
    const confused = await new SignJWT({ ...claims, iss: auth.issuer, exp: now() + 300 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(await auth.publicKeyPem()))
    const valid = await auth.sign(claims)
    const [head, body] = valid.split('.')
    const cases: [string, string, RegExp][] = [
      ['alg none', unsigned, /alg|signature|Unsupported|JWS/i],
      ['HS256 signed with the RSA public key', confused, /alg/i],
      [
        'expired an hour ago',
        await auth.sign({ ...claims, exp: now() - 3600 }),
        /"exp" claim timestamp check failed/,
      ],
      [
        'not valid for another hour',
        await auth.sign({ ...claims, nbf: now() + 3600 }),
        /"nbf" claim timestamp check failed/,
      ],
      ['no exp', await auth.sign({ ...claims, exp: undefined }), /missing required "exp" claim/],
      [
        'another issuer',
        await auth.sign({ ...claims, iss: 'https://evil.example' }),
        /issuer "https:\/\/evil.example" is not a configured client's/,
      ],
      [
        'another audience',
        await auth.sign({ ...claims, aud: 'https://other.example' }),
        /unexpected "aud" claim value/,
      ],
      [
        'tampered payload',
        `${head}.${header({ ...claims, iss: auth.issuer, exp: now() + 300, client_id: 'agent-b' })}.${valid.split('.')[2]}`,
        /signature verification failed/,
      ],
      ['a key id nobody published', await auth.sign(claims, { kid: 'nobody' }), /no applicable key found/i],
      ['not a JWT at all', `${head}.${body}`, /neither a configured static token nor a JWT/],
    ]
    for (const [name, token, reason] of cases) {
      const res = await getTicket(app, token)
      assert.equal(res.statusCode, 401, `${name}: ${res.body}`)
      assert.equal(res.json().code, 'TG_ERR_ACCESS_TOKEN_INVALID', name)
      assert.match(res.json().error, reason, name)
      assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/, name)
    }
    const tolerated = await auth.sign({ ...claims, exp: now() - 10 })
    assert.equal((await getTicket(app, tolerated)).statusCode, 200, 'within the 30 s clock tolerance')
  })

  test('a token for client A used on a tool only client B may call is 403; a valid token naming no client too', async (t) => {
    const { app, auth } = await jwtApp(t)
    const b = await getTicket(app, await auth.sign({ client_id: 'agent-b', aud: GATEWAY }))
    assert.equal(b.statusCode, 403)
    assert.equal(b.json().code, 'TG_ERR_ACCESS_TOOL_NOT_ALLOWED')
    const stranger = await getTicket(app, await auth.sign({ client_id: 'stranger', aud: GATEWAY }))
    assert.equal(stranger.statusCode, 403)
    assert.equal(stranger.json().code, 'TG_ERR_ACCESS_CLIENT_UNKNOWN')
    assert.match(stranger.json().error, /client_id "stranger" names no configured client/)
  })

  test('a missing scope is 403 with error="insufficient_scope" and the scopes to ask for', async (t) => {
    const { app, auth } = await jwtApp(t)
    const partial = await auth.sign({ client_id: 'scoped', aud: GATEWAY, scope: 'tools.call' })
    const res = await getTicket(app, partial)
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().code, 'TG_ERR_ACCESS_SCOPE_INSUFFICIENT')
    assert.equal(
      res.headers['www-authenticate'],
      `Bearer realm="toolgate", resource_metadata="${GATEWAY}/.well-known/oauth-protected-resource", scope="tools.call tickets.read", error="insufficient_scope", error_description="The token lacks a scope this client needs: client scoped needs the scopes tools.call tickets.read; the token lacks tickets.read. Request a token with these scopes"`,
    )
    for (const scopes of [{ scope: 'tickets.read tools.call' }, { scp: ['tools.call', 'tickets.read'] }]) {
      const full = await auth.sign({ client_id: 'scoped', aud: GATEWAY, ...scopes })
      assert.equal((await getTicket(app, full)).statusCode, 200, JSON.stringify(scopes))
    }
  })

  test('key rotation: a new key id triggers one refetch, rate limited by the cooldown', async (t) => {
    const { app, auth } = await jwtApp(t)
    assert.equal(
      (await getTicket(app, await auth.sign({ client_id: 'agent-a', aud: GATEWAY }))).statusCode,
      200,
    )
    const before = auth.jwksFetches()
    const newKid = await auth.rotate()
    const rotated = await auth.sign({ client_id: 'agent-a', aud: GATEWAY })
    await sleep(1_100) // past the 1 s cooldown of the last fetch
    assert.equal((await getTicket(app, rotated)).statusCode, 200, `a token signed with the new key ${newKid}`)
    assert.equal(auth.jwksFetches(), before + 1, 'exactly one refetch for the new key')
    for (let i = 0; i < 5; i++) {
      const unknown = await auth.sign({ client_id: 'agent-a', aud: GATEWAY }, { kid: `unknown-${i}` })
      assert.equal((await getTicket(app, unknown)).statusCode, 401)
    }
    assert.equal(auth.jwksFetches(), before + 1, 'unknown key ids within the cooldown fetch nothing')
  })

  test('a verified token is remembered only until its keys change: once the JWKS drops its key, it is a 401', async (t) => {
    const { app, auth } = await jwtApp(t)
    const old = await auth.sign({ client_id: 'agent-a', aud: GATEWAY })
    assert.equal((await getTicket(app, old)).statusCode, 200)
    assert.equal((await getTicket(app, old)).statusCode, 200, 'again, from the cache')
    await auth.rotate() // the old key leaves the JWKS
    const rotated = await auth.sign({ client_id: 'agent-a', aud: GATEWAY })
    await sleep(1_100) // past the 1 s cooldown of the last fetch
    assert.equal((await getTicket(app, rotated)).statusCode, 200, 'the new key is fetched')
    assert.equal(
      (await getTicket(app, old)).statusCode,
      401,
      'the old key is gone: its token no longer vouches',
    )
  })

  test("keys found through the issuer's OpenID configuration; a configuration naming another issuer fails closed", async (t) => {
    const auth = await startAuthServer(t)
    const { app } = await exampleApp(
      t,
      `publicUrl: ${GATEWAY}\nclients:\n  - id: found\n    jwt: { issuer: "${auth.issuer}" }\n  - id: lying\n    jwt: { issuer: "${auth.issuer}/tenant" }\n`,
    )
    assert.equal(
      (await getTicket(app, await auth.sign({ client_id: 'found', aud: GATEWAY }))).statusCode,
      200,
    )
    const lying = await getTicket(
      app,
      await auth.sign({ client_id: 'lying', aud: GATEWAY, iss: `${auth.issuer}/tenant` }),
    )
    assert.equal(lying.statusCode, 401)
    assert.equal(lying.json().code, 'TG_ERR_ACCESS_KEYS_UNAVAILABLE')
  })

  test('a JWKS that is down, resets, answers garbage or is slow: 401 failing closed, saying so, bounded in time', {
    timeout: 4 * HANG_BOUND_MS,
  }, async (t) => {
    for (const [mode, reason] of [
      ['error', /answered 503 instead of 200/],
      ['reset', /did not answer/],
      ['garbage', /not JSON: "<html>maintenance<\/html>"/],
      ['not-a-key-set', /is not a JSON Web Key Set/],
      ['slow', /no answer within 5000 ms/],
    ] as const) {
      const auth = await startAuthServer(t)
      auth.jwksMode = mode
      const { app } = await exampleApp(t, clientsYaml(auth))
      // 'slow' answers good keys after 20 s: only the 5 s fetch timeout makes it a 401 saying so.
      const res = await getTicket(app, await auth.sign({ client_id: 'agent-a', aud: GATEWAY }))
      assert.equal(res.statusCode, 401, mode)
      assert.equal(res.json().code, 'TG_ERR_ACCESS_KEYS_UNAVAILABLE', mode)
      assert.match(res.json().error, /fails closed/)
      assert.match(res.json().error, reason, mode)
      if (mode !== 'error') continue
      const fetches = auth.jwksFetches()
      const again = await getTicket(app, await auth.sign({ client_id: 'agent-a', aud: GATEWAY }))
      assert.match(again.json().error, /not retried for 5 s/)
      assert.equal(auth.jwksFetches(), fetches, 'a failed issuer is not asked again at once')
      auth.jwksMode = 'ok'
      await sleep(5_100)
      assert.equal(
        (await getTicket(app, await auth.sign({ client_id: 'agent-a', aud: GATEWAY }))).statusCode,
        200,
        'recovers by itself',
      )
    }
  })

  test('discovery with a JWT lists only what that client may call', async (t) => {
    const { app, auth } = await jwtApp(t)
    const res = await app.inject({
      url: '/openai.json',
      headers: { authorization: `Bearer ${await auth.sign({ client_id: 'agent-b', aud: GATEWAY })}` },
    })
    const names = res.json().map((tool: { function: { name: string } }) => tool.function.name)
    assert.ok(names.length > 0 && names.every((name: string) => name.startsWith('billing_')))
  })
})

describe('MCP authorization (RFC 9728 resource metadata, RFC 8707 audience)', () => {
  test('the resource metadata documents name the issuers and scopes; a 401 points at them', async (t) => {
    const { app, auth } = await jwtApp(t)
    const root = await app.inject('/.well-known/oauth-protected-resource')
    assert.equal(root.statusCode, 200)
    assert.deepEqual(root.json(), {
      resource: GATEWAY,
      authorization_servers: [auth.issuer],
      scopes_supported: ['tools.call', 'tickets.read'],
      bearer_methods_supported: ['header'],
      resource_name: 'toolgate',
    })
    const mcp = await app.inject('/.well-known/oauth-protected-resource/mcp')
    assert.equal(mcp.json().resource, `${GATEWAY}/mcp`)
    const challenged = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    assert.equal(challenged.statusCode, 401)
    assert.equal(
      challenged.headers['www-authenticate'],
      `Bearer realm="toolgate", resource_metadata="${GATEWAY}/.well-known/oauth-protected-resource", scope="tools.call tickets.read"`,
    )
  })

  test('without a JWT client there is no authorization server to name: 404', async (t) => {
    const { app } = await exampleApp(t, 'clients: [{ id: s, token: { value: static-token-0000001 } }]\n')
    const res = await app.inject('/.well-known/oauth-protected-resource')
    assert.equal(res.statusCode, 404)
    assert.match(res.json().error, /No client uses an OAuth issuer/)
  })

  test('an MCP client on the official SDK: 401, reads the metadata, gets a token by client credentials, lists and calls', async (t) => {
    const auth = await startAuthServer(t)
    auth.clients.set('sdk-agent', 'sdk-agent-secret')
    const port = await closedPort()
    const publicUrl = `http://127.0.0.1:${port}`
    const { app } = await exampleApp(
      t,
      `publicUrl: ${publicUrl}\nclients:\n  - id: sdk-agent\n    jwt: { issuer: "${auth.issuer}", scopes: [mcp] }\n    tools: ["tickets:*"]\n`,
    )
    await app.listen({ port, host: '127.0.0.1' })
    const client = new McpClient({ name: 'sdk-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(`${publicUrl}/mcp`), {
      authProvider: new ClientCredentialsProvider({
        clientId: 'sdk-agent',
        clientSecret: 'sdk-agent-secret',
        // SDK 1.x asks for the provider's own scope in a client_credentials grant.
        scope: 'mcp',
        expectedIssuer: auth.issuer,
      }),
    })
    t.after(() => client.close())
    await client.connect(transport)
    const { tools } = await client.listTools()
    assert.ok(tools.length > 0 && tools.every((tool) => tool.name.startsWith('tickets_')))
    const result = await client.callTool({ name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } })
    assert.equal(result.isError, false)
    assert.match(JSON.stringify(result.content), /T-1001/)
  })
})
