// Access control (issue 13): clients with static tokens, what each may do, origins, rate limits, modes.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { describe, test } from 'node:test'
import { inspect } from 'node:util'
import fc from 'fast-check'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { ConfigError, loadConfig } from '../../src/config/load-config.js'
import { configFile, exampleApp, testApp } from '../helpers/app.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus.js'
import { privateRedis } from '../helpers/redis.js'

export const TOKENS = {
  opal: 'opal-registry-token-0001',
  billing: 'billing-bot-token-000002',
  deleter: 'deleter-token-00000000003',
  ops: 'operator-token-000000004',
  reader: 'reader-token-00000000005',
  tiny: 'tiny-budget-token-000006',
}

const CLIENTS = `
profiles:
  readers: { safety: { readOnly: true } }
clients:
  - id: opal
    token: { value: ${TOKENS.opal} }
    tools: ["tickets:*"]
  - id: billing-bot
    token: { value: ${TOKENS.billing} }
    tools: ["billing:*"]
  - id: deleter
    token: { value: ${TOKENS.deleter} }
    tools: ["tickets:*"]
    approve: ["tickets:deleteTicket"]
  - id: ops
    token: { sha256: ${createHash('sha256').update(TOKENS.ops).digest('hex')} }
    tools: []
    operator: true
  - id: reader
    token: { value: ${TOKENS.reader} }
    profiles: [readers]
    sessions: true
  - id: tiny
    token: { value: ${TOKENS.tiny} }
    rateLimit: { max: 3, windowSeconds: 60 }
`

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

function getTicket(
  app: FastifyInstance,
  headers: InjectOptions['headers'] = {},
  url = '/tools/tickets_get_ticket',
) {
  return app.inject({ method: 'POST', url, headers, payload: { parameters: { ticketId: 'T-1001' } } })
}

function mcp(app: FastifyInstance, body: object, headers: InjectOptions['headers'] = {}) {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...mcpHeaders, ...headers },
    payload: { jsonrpc: '2.0', ...body },
  })
}

const callTicket = {
  id: 7,
  method: 'tools/call',
  params: { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } },
}

function wireNames(app: FastifyInstance, url: string, headers: InjectOptions['headers'] = {}) {
  return app.inject({ url, headers }).then((res) => {
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    return (Array.isArray(body) ? body : (body.functions ?? body.tools)).map(
      (tool: { name?: string; function?: { name: string } }) => tool.name ?? tool.function?.name,
    ) as string[]
  })
}

describe('clients with static tokens', () => {
  test('a tool call needs a client token: none is 401 with a Bearer challenge, the right one answers', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const missing = await getTicket(app)
    assert.equal(missing.statusCode, 401)
    assert.equal(missing.json().code, 'TG_ERR_ACCESS_TOKEN_MISSING')
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="toolgate"')
    for (const url of ['/tools/tickets_get_ticket', '/discovery/tools/tickets_get_ticket']) {
      const answered = await getTicket(app, bearer(TOKENS.opal), url)
      assert.equal(answered.statusCode, 200, answered.body)
      assert.equal(answered.json().id, 'T-1001')
    }
    assert.equal((await getTicket(app, { authorization: `bearer ${TOKENS.opal}` })).statusCode, 200)
  })

  test('bad Authorization headers are each a clear 401 { error, code }, never a 5xx', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['Basic b3BhbDpzZWNyZXQ=', /only Bearer tokens/],
      ['Bearer', /malformed/],
      ['Bearer a b', /malformed/],
      ['Bearer ###', /malformed/],
      [`Bearer ${'x'.repeat(10 * 1024)}`, /longer than 4096/],
      ['Bearer wrong-token-value-0000', /neither a configured static token nor a JWT/],
      [`Bearer ${TOKENS.opal}x`, /neither a configured static token nor a JWT/],
    ]
    for (const [header, reason] of cases) {
      const res = await getTicket(app, { authorization: header })
      assert.equal(res.statusCode, 401, header.slice(0, 40))
      assert.equal(res.json().code, 'TG_ERR_ACCESS_TOKEN_INVALID')
      assert.match(res.json().error, reason)
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="toolgate", error="invalid_token"/)
    }
  })

  test('generated Authorization headers: every one that is not a token is a 401 on calls, MCP and discovery', async (t) => {
    // Each header judged, not the budgets: 150 failures from one address spend its 60 (issue 41).
    const { app } = await exampleApp(
      t,
      `${CLIENTS}rateLimits: { anonymous: false, failedAuthentications: false }\n`,
    )
    const known = new Set(Object.values(TOKENS).flatMap((token) => [`Bearer ${token}`, `bearer ${token}`]))
    const header = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 200 }).map((value) => `Bearer ${value}`),
      fc.base64String({ maxLength: 300 }).map((value) => `Bearer ${value}`),
      fc.constantFrom(...Object.values(TOKENS)).map((token) => `Bearer ${token.slice(0, -1)}`),
    )
    await fc.assert(
      fc.asyncProperty(header, fc.constantFrom('call', 'mcp', 'discovery'), async (value, surface) => {
        fc.pre(!known.has(value.trim()) && !/[\r\n]/.test(value))
        const headers = { authorization: value }
        const res =
          surface === 'call'
            ? await getTicket(app, headers)
            : surface === 'mcp'
              ? await mcp(app, { id: 1, method: 'tools/list' }, headers)
              : await app.inject({ url: '/discovery', headers })
        assert.equal(res.statusCode, 401, `${surface} ${JSON.stringify(value)} → ${res.statusCode}`)
        assert.match(res.json().code, /^TG_ERR_ACCESS_TOKEN_(INVALID|MISSING)$/)
      }),
      { numRuns: 150 },
    )
  })

  test('a token for client A used on a tool only client B may call is 403, on every surface', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const rest = await getTicket(app, bearer(TOKENS.billing))
    assert.equal(rest.statusCode, 403)
    assert.equal(rest.json().code, 'TG_ERR_ACCESS_TOOL_NOT_ALLOWED')
    assert.match(rest.json().error, /Client billing-bot may not call tool tickets_get_ticket/)
    const opal = await getTicket(app, bearer(TOKENS.billing), '/discovery/tools/tickets_get_ticket')
    assert.equal(opal.statusCode, 403)
    const overMcp = await mcp(app, callTicket, bearer(TOKENS.billing))
    assert.equal(overMcp.statusCode, 200)
    assert.equal(overMcp.json().error.code, -32602)
    assert.match(overMcp.json().error.message, /Client billing-bot may not call tool tickets_get_ticket/)
    const balance = await app.inject({
      method: 'POST',
      url: '/tools/billing_get_balance',
      headers: bearer(TOKENS.billing),
      payload: { customerId: 'CUS-1' },
    })
    assert.equal(balance.statusCode, 200, balance.body)
  })

  test('discovery stays anonymous; with a token it lists only what that client may call', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const everything = await wireNames(app, '/discovery')
    assert.ok(everything.some((name) => name.startsWith('billing_')))
    assert.ok(everything.some((name) => name.startsWith('tickets_')))
    for (const url of ['/discovery', '/openai.json', '/claude.json', '/openai.json?strict=true']) {
      const billing = await wireNames(app, url, bearer(TOKENS.billing))
      assert.ok(billing.length > 0 && billing.every((name) => name.startsWith('billing_')), url)
    }
    assert.deepEqual(await wireNames(app, '/openai/tickets.json', bearer(TOKENS.billing)), [])
    // The deferred forms narrow the same way: only billing's namespace, only billing's tools.
    assert.deepEqual(await wireNames(app, '/openai-deferred.json', bearer(TOKENS.billing)), [
      'billing',
      undefined,
    ])
    const deferred = await wireNames(app, '/claude-deferred.json', bearer(TOKENS.billing))
    assert.ok(deferred.slice(1).every((name) => name.startsWith('billing_')) && deferred.length > 1)
    const reader = await wireNames(app, '/discovery', bearer(TOKENS.reader))
    assert.ok(reader.includes('tickets_get_ticket') && !reader.includes('tickets_create_ticket'))
    const anonymousAgain = await app.inject('/discovery')
    assert.equal(anonymousAgain.statusCode, 200)
    assert.equal(anonymousAgain.json().functions.length, everything.length)
    const refused = await app.inject({ url: '/discovery', headers: bearer('not-a-known-token-at-all') })
    assert.equal(refused.statusCode, 401, 'a token that is presented must be valid')
  })

  test('approval: only a client allowed to approve a tool can grant it with X-Toolgate-Approval', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const created = await app.inject({
      method: 'POST',
      url: '/tools/tickets_create_ticket',
      headers: bearer(TOKENS.opal),
      payload: { title: 'Access', description: 'approval test', priority: 'low' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const ticketId = created.json().id
    const remove = (token: string, approval?: string) =>
      app.inject({
        method: 'POST',
        url: '/tools/tickets_delete_ticket',
        headers: { ...bearer(token), ...(approval ? { 'x-toolgate-approval': approval } : {}) },
        payload: { ticketId },
      })
    const notAllowed = await remove(TOKENS.opal, 'tickets_delete_ticket')
    assert.equal(notAllowed.statusCode, 403)
    assert.equal(notAllowed.json().code, 'TG_ERR_ACCESS_APPROVAL_NOT_ALLOWED')
    const unapproved = await remove(TOKENS.deleter)
    assert.equal(unapproved.json().code, 'TG_ERR_TOOL_APPROVAL_REQUIRED')
    assert.equal((await remove(TOKENS.deleter, 'tickets_delete_ticket')).statusCode, 204)
  })

  test('operator routes: /catalog and /catalog/reloads need a client with operator: true', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    for (const url of ['/catalog', '/catalog/reloads']) {
      assert.equal((await app.inject(url)).statusCode, 401, url)
      const denied = await app.inject({ url, headers: bearer(TOKENS.opal) })
      assert.equal(denied.statusCode, 403, url)
      assert.equal(denied.json().code, 'TG_ERR_ACCESS_OPERATOR_ONLY')
      assert.equal((await app.inject({ url, headers: bearer(TOKENS.ops) })).statusCode, 200, url)
    }
    for (const url of ['/health', '/ready', '/version', '/metrics', '/documentation/json'])
      assert.equal((await app.inject(url)).statusCode, 200, `${url} stays open`)
  })

  test('sessions: created by a client with sessions: true, whose manifest lists only what it may call', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const create = (headers: InjectOptions['headers'], profile = 'readers') =>
      app.inject({ method: 'POST', url: '/api/sessions', headers, payload: { profile } })
    assert.equal((await create({})).statusCode, 401)
    const denied = await create(bearer(TOKENS.opal))
    assert.equal(denied.statusCode, 403)
    assert.equal(denied.json().code, 'TG_ERR_ACCESS_SESSIONS_NOT_ALLOWED')
    const outside = await create(bearer(TOKENS.reader), 'discover')
    assert.equal(outside.statusCode, 403)
    assert.equal(outside.json().code, 'TG_ERR_ACCESS_PROFILE_NOT_ALLOWED')
    const created = await create(bearer(TOKENS.reader))
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().client, 'reader')
    const names = await wireNames(app, `/api/sessions/${created.json().code}/metadata`)
    assert.ok(names.length > 0)
    assert.ok(names.includes('tickets_get_ticket') && !names.includes('tickets_create_ticket'))
  })

  test('MCP: every request needs a client; tools/list shows what that client may call', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const anonymous = await mcp(app, {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    })
    assert.equal(anonymous.statusCode, 401)
    assert.match(String(anonymous.headers['www-authenticate']), /^Bearer /)
    const listed = await mcp(app, { id: 2, method: 'tools/list' }, bearer(TOKENS.billing))
    const names = listed.json().result.tools.map((tool: { name: string }) => tool.name)
    assert.ok(names.length > 0 && names.every((name: string) => name.startsWith('billing_')))
    const called = await mcp(app, callTicket, bearer(TOKENS.opal))
    assert.equal(called.json().result.isError, false)
  })

  test('Origin: absent, localhost, publicUrl and allowedOrigins pass; any other is 403 on calls and MCP', async (t) => {
    const { app } = await exampleApp(
      t,
      `${CLIENTS}publicUrl: https://tools.example.com\nallowedOrigins: [https://studio.example.org]\n`,
    )
    const allowed = [
      undefined,
      'http://localhost:5173',
      'http://127.0.0.1:3000',
      'https://tools.example.com',
      'https://studio.example.org',
    ]
    const refused = [
      'http://evil.example',
      'null',
      'https://tools.example.com.evil.example',
      'https://studio.example.org:8443',
      'file://',
      'http://localhost.evil.example',
    ]
    for (const origin of allowed) {
      const headers = { ...bearer(TOKENS.opal), ...(origin ? { origin } : {}) }
      assert.equal((await getTicket(app, headers)).statusCode, 200, String(origin))
      assert.equal((await mcp(app, callTicket, headers)).statusCode, 200, String(origin))
    }
    for (const origin of refused) {
      const headers = { ...bearer(TOKENS.opal), origin }
      const call = await getTicket(app, headers)
      assert.equal(call.statusCode, 403, origin)
      assert.equal(call.json().code, 'TG_ERR_ACCESS_ORIGIN_REFUSED')
      assert.equal((await mcp(app, callTicket, headers)).statusCode, 403, origin)
    }
    assert.equal(
      (await app.inject({ url: '/discovery', headers: { origin: 'http://evil.example' } })).statusCode,
      200,
    )
  })

  test('rate limits: over its budget a client gets 429 with Retry-After and RateLimit-*; over MCP a tool error result', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    for (let i = 1; i <= 3; i++) {
      const res = await getTicket(app, bearer(TOKENS.tiny))
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['ratelimit-limit'], '3')
      assert.equal(res.headers['ratelimit-remaining'], String(3 - i))
    }
    const limited = await getTicket(app, bearer(TOKENS.tiny))
    assert.equal(limited.statusCode, 429)
    assert.equal(limited.json().code, 'TG_ERR_ACCESS_RATE_LIMITED')
    assert.match(limited.json().error, /client tiny \(3 requests per 60 s\)/)
    assert.ok(Number(limited.headers['retry-after']) >= 1 && Number(limited.headers['retry-after']) <= 60)
    assert.equal(limited.headers['ratelimit-remaining'], '0')
    const overMcp = await mcp(app, callTicket, bearer(TOKENS.tiny))
    assert.equal(overMcp.statusCode, 200)
    assert.equal(overMcp.json().result.isError, true)
    assert.match(overMcp.json().result.content[0].text, /Rate limit exceeded for client tiny.*retry in \d+ s/)
    assert.ok(overMcp.headers['retry-after'])
    const listed = await mcp(app, { id: 3, method: 'tools/list' }, bearer(TOKENS.tiny))
    assert.equal(listed.statusCode, 429)
    assert.equal(listed.json().id, 3)
    assert.match(listed.json().error.message, /Rate limit exceeded/)
    assert.equal(
      (await getTicket(app, bearer(TOKENS.opal))).statusCode,
      200,
      'other clients keep their budget',
    )
  })

  test('anonymous discovery is limited per address: configured, and 1,200 a minute by default in production', async (t) => {
    const { app } = await exampleApp(t, 'rateLimits: { anonymous: { max: 2, windowSeconds: 30 } }\n')
    assert.equal((await app.inject('/discovery')).statusCode, 200)
    assert.equal((await app.inject('/openai.json')).statusCode, 200)
    const limited = await app.inject('/claude.json')
    assert.equal(limited.statusCode, 429)
    assert.match(limited.json().error, /address 127\.0\.0\.1 \(2 requests per 30 s\)/)
    const other = await app.inject({ url: '/discovery', remoteAddress: '10.1.2.3' })
    assert.equal(other.statusCode, 200, 'another address has its own budget')
    assert.equal((await app.inject('/health')).statusCode, 200, 'probes are never limited')
    const production = await testApp(t, { NODE_ENV: 'production' })
    assert.equal((await production.inject('/discovery')).headers['ratelimit-limit'], '1200')
    const development = await testApp(t)
    assert.equal((await development.inject('/discovery')).headers['ratelimit-limit'], undefined)
  })

  test("behind a trusted proxy, no forwarded address spends a client's budget", async (t) => {
    const { app } = await exampleApp(t, `${CLIENTS}rateLimits: { anonymous: { max: 1000 } }\n`, {
      TRUST_PROXY: 'true',
    })
    // Addresses as a hostile caller would forward them: a client's key, and anything else.
    const forwarded = fc.oneof(
      fc.constantFrom('client:tiny', 'client:opal', 'address:client:tiny', 'client:', 'tiny'),
      fc.string({ minLength: 1, maxLength: 40 }).map((s) => `client:${s}`),
      fc.string({ minLength: 1, maxLength: 40 }),
    )
    let sent = 0
    await fc.assert(
      fc.asyncProperty(forwarded, async (address) => {
        const value = address.replace(/[^\x21-\x7e]|,/g, 'x') // a valid header; a comma would split it
        const res = await app.inject({ url: '/discovery', headers: { 'x-forwarded-for': value } })
        assert.equal(res.statusCode, 200)
        assert.equal(res.headers['ratelimit-limit'], '1000', "the anonymous budget, not a client's")
        sent++
      }),
      { numRuns: 60 },
    )
    assert.ok(sent >= 60)
    const first = await getTicket(app, bearer(TOKENS.tiny))
    assert.equal(first.statusCode, 200)
    assert.equal(
      first.headers['ratelimit-remaining'],
      '2',
      "tiny's budget is untouched by the forwarded addresses",
    )
  })

  test('/metrics counts tool calls and refusals by client and reason; the tool call log names the client', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    await getTicket(app, bearer(TOKENS.opal))
    await mcp(app, callTicket, bearer(TOKENS.opal))
    await getTicket(app)
    await getTicket(app, bearer('wrong-token-value-000000'))
    await getTicket(app, bearer(TOKENS.billing))
    for (let i = 0; i < 4; i++) await getTicket(app, bearer(TOKENS.tiny))
    await getTicket(app, { ...bearer(TOKENS.opal), origin: 'http://evil.example' })
    const metrics = parsePrometheusText((await app.inject('/metrics')).body)
    const calls = (client: string, via: string) =>
      sampleValue(metrics, 'toolgate_tool_calls_total', { client, via })
    const refusals = (client: string, reason: string) =>
      sampleValue(metrics, 'toolgate_access_refusals_total', { client, reason })
    assert.equal(calls('opal', 'rest'), 1)
    assert.equal(calls('opal', 'mcp'), 1)
    assert.equal(calls('tiny', 'rest'), 3)
    assert.equal(refusals('anonymous', 'no_token'), 1)
    assert.equal(refusals('unknown', 'bad_token'), 1)
    assert.equal(refusals('billing-bot', 'not_allowed'), 1)
    assert.equal(refusals('tiny', 'rate_limited'), 1)
    assert.equal(refusals('anonymous', 'origin'), 1)
  })
})

describe('modes', () => {
  test('development without clients is open, and says so in /ready', async (t) => {
    const { app } = await exampleApp(t)
    assert.equal((await getTicket(app)).statusCode, 200)
    assert.equal((await mcp(app, callTicket)).json().result.isError, false)
    assert.equal((await app.inject('/catalog')).statusCode, 200)
    const ready = (await app.inject('/ready')).json()
    assert.equal(ready.access.mode, 'open')
    assert.match(ready.access.warning, /access is OPEN/)
  })

  test('production without clients refuses calls, MCP and the operator routes with 403 naming the fix', async (t) => {
    const { app } = await exampleApp(t, '', { NODE_ENV: 'production' })
    for (const res of [await getTicket(app), await mcp(app, callTicket), await app.inject('/catalog')]) {
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().code, 'TG_ERR_ACCESS_CLOSED')
      assert.match(res.json().error, /add clients: to TOOLGATE_CONFIG.*or set access: open/)
    }
    assert.equal((await app.inject('/discovery')).statusCode, 200, 'discovery stays anonymous (seed 000)')
    assert.equal((await app.inject('/ready')).json().access.mode, 'closed')
  })

  test('production with access: open serves everyone, and still says so', async (t) => {
    const { app } = await exampleApp(t, 'access: open\n', { NODE_ENV: 'production' })
    assert.equal((await getTicket(app)).statusCode, 200)
    assert.match((await app.inject('/ready')).json().access.warning, /access is OPEN/)
  })

  test('development with clients checks them like production', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    assert.equal((await getTicket(app)).statusCode, 401)
    assert.deepEqual((await app.inject('/ready')).json().access, { mode: 'clients', clients: 6 })
  })
})

describe('client configuration', () => {
  const load = async (yaml: string, env: Record<string, string> = {}) =>
    loadConfig({ TOOLGATE_CONFIG: await configFile(yaml), ...env }, (path) => readFile(path, 'utf8'))

  test('contradictions and gaps are named by client', async () => {
    const cases: [string, RegExp][] = [
      [
        'access: open\nclients: [{ id: a, token: { value: aaaaaaaaaaaaaaaa } }]\n',
        /access: open admits everyone/,
      ],
      ['clients: [{ id: a }]\n', /clients\[0\] \(a\): give exactly one of token/],
      [
        'clients: [{ id: a, token: { value: aaaaaaaaaaaaaaaa }, jwt: { issuer: "https://x" } }]\n',
        /exactly one of token/,
      ],
      [
        'clients: [{ id: a, token: { value: aaaaaaaaaaaaaaaa } }, { id: a, token: { value: bbbbbbbbbbbbbbbb } }]\n',
        /clients\[1\] \(a\): the id is used twice/,
      ],
      ['clients: [{ id: a, token: { value: short } }]\n', /at least 16 characters/],
      ['clients: [{ id: a, token: { env: NOPE_TOKEN } }]\n', /environment variable NOPE_TOKEN is not set/],
      ['clients: [{ id: a, token: { value: aaaaaaaaaaaaaaaa }, profiles: [nope] }]\n', /no profile nope/],
      ['clients: [{ id: a, jwt: { issuer: "https://idp.example" } }]\n', /a JWT client needs publicUrl/],
      // jwt.audience no longer stands in for publicUrl: the metadata and challenges name it (issue 41 class 7).
      [
        'clients: [{ id: a, jwt: { issuer: "https://idp.example", audience: "https://gw.example" } }]\n',
        /clients\[0\] \(a\)\.jwt: a JWT client needs publicUrl/,
      ],
      [
        'publicUrl: https://gw.example\nclients: [{ id: a, jwt: { issuer: "http://idp.example" } }]\n',
        /must be https/,
      ],
      ['clients: [{ id: a, token: { sha256: abc } }]\n', /clients\.0\.token/],
      ['clients: [{ id: a, token: { value: aaaaaaaaaaaaaaaa }, rateLimit: { max: 0 } }]\n', /rateLimit/],
      ['clients: [{ id: a, token: { value: aaaaaaaaaaaaaaaa }, jwt: null, role: admin }]\n', /unknown key/],
      ['allowedOrigins: ["https://x.example/path"]\n', /allowedOrigins/],
    ]
    for (const [yaml, expected] of cases)
      await assert.rejects(load(yaml), (err: unknown) => {
        assert.ok(err instanceof ConfigError, yaml)
        assert.match(err.message, expected, yaml)
        return true
      })
  })

  test('only a digest of each token stays in memory', async () => {
    const config = await load(`clients: [{ id: a, token: { value: ${TOKENS.opal} } }]\n`)
    assert.ok(!JSON.stringify(config).includes(TOKENS.opal))
    assert.ok(!inspect(config, { depth: 20 }).includes(TOKENS.opal))
  })
})

test('Redis down: client budgets fall back to this replica, calls keep answering', async (t) => {
  const redis = await privateRedis(t)
  const { app } = await exampleApp(t, CLIENTS, {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `access-test:${Date.now()}:`,
  })
  assert.equal((await getTicket(app, bearer(TOKENS.tiny))).statusCode, 200)
  await redis.stop()
  const during = [] as number[]
  for (let i = 0; i < 4; i++) during.push((await getTicket(app, bearer(TOKENS.tiny))).statusCode)
  assert.deepEqual(
    during,
    [200, 200, 200, 429],
    'counted in memory from the outage on, still limited, never a 500',
  )
  assert.equal((await getTicket(app, bearer(TOKENS.opal))).statusCode, 200)
})
