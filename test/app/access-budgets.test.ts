// Issue 41, class 4: budgets that could be emptied or skipped. A client's budget cannot be evicted
// by anonymous traffic from new addresses; failed authentications count against the address
// (IPv6: its /64) and, past their budget, are refused before the token is verified; refusals are
// logged at a bounded rate. Addresses and tokens generated with fast-check.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { base64url } from 'jose'
import { configFile, exampleApp, loggedApp } from '../helpers/app.js'
import { startAuthServer } from '../helpers/auth-server.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus.js'

const GATEWAY = 'https://gateway.test'
const TINY = 'tiny-budget-token-000006'
const STEADY = 'steady-client-token-0007'
const TINY_CLIENT = `clients:
  - id: tiny
    token: { value: ${TINY} }
    rateLimit: { max: 3, windowSeconds: 60 }
  - id: steady
    token: { value: ${STEADY} }
`

function getTicket(app: FastifyInstance, token: string, remoteAddress?: string) {
  return app.inject({
    method: 'POST',
    url: '/tools/tickets_get_ticket',
    headers: { authorization: `Bearer ${token}` },
    payload: { ticketId: 'T-1001' },
    ...(remoteAddress ? { remoteAddress } : {}),
  })
}

/** An address as a caller's socket or proxy reports it: IPv4, IPv6 or IPv4-mapped. */
const anyAddress = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4().map((ip) => `::ffff:${ip}`),
)

/** Addresses of one /64 (`network`: its four first groups), written in any of the ways they are. */
function addressIn(network: readonly number[]): fc.Arbitrary<string> {
  const hex = (groups: readonly number[], pad: boolean) =>
    groups.map((g) => (pad ? g.toString(16).padStart(4, '0') : g.toString(16)))
  return fc
    .tuple(
      fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 4, maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([host, pad, upper]) => {
      const text = [...hex(network, pad), ...hex(host, pad)].join(':')
      return upper ? text.toUpperCase() : text
    })
}

describe('budgets that anonymous traffic cannot empty or skip', () => {
  test('10,050 requests from generated new addresses do not reset a throttled client', async (t) => {
    const { app } = await exampleApp(t, `${TINY_CLIENT}rateLimits: { anonymous: { max: 5 } }\n`)
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(anyAddress, { minLength: 10_050, maxLength: 10_050 }),
        async (addresses) => {
          while ((await getTicket(app, TINY)).statusCode !== 429);
          for (const remoteAddress of addresses) {
            const res = await app.inject({ url: '/discovery', remoteAddress })
            assert.notEqual(res.statusCode, 500)
          }
          const after = await getTicket(app, TINY)
          assert.equal(after.statusCode, 429, 'the client is still over its budget')
          assert.equal(after.headers['ratelimit-remaining'], '0')
        },
      ),
      { numRuns: 2, endOnFailure: true },
    )
  })
})

describe('failed authentications count against the address', () => {
  test('a bad-token flood from one /64 gets 429 before its tokens are verified; good tokens still pass', async (t) => {
    const auth = await startAuthServer(t)
    const { app } = await exampleApp(
      t,
      `publicUrl: ${GATEWAY}
clients:
  - id: agent-a
    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}", keysCooldownSeconds: 0 }
    tools: ["tickets:*"]
`,
    )
    const remembered = await auth.sign({ client_id: 'agent-a', aud: GATEWAY })
    assert.equal((await getTicket(app, remembered, '2001:db8:1:2::1')).statusCode, 200)
    const header = (value: object) => base64url.encode(JSON.stringify(value))
    // Tokens a flood sends: signed with an unknown key (each one costs a JWKS fetch when judged,
    // the keys' cooldown being 0), expired, forged, not a JWT at all.
    const badToken = fc.oneof(
      fc
        .string({ minLength: 1, maxLength: 12 })
        .map((kid) => auth.sign({ client_id: 'agent-a', aud: GATEWAY }, { kid: `unknown-${kid}` })),
      fc.integer({ min: 60, max: 86_400 }).map((ago) =>
        auth.sign({
          client_id: 'agent-a',
          aud: GATEWAY,
          exp: Math.floor(Date.now() / 1000) - ago,
        }),
      ),
      fc
        .stringMatching(/^[A-Za-z0-9_-]{8,40}$/)
        .map(
          async (sig) => `${header({ alg: 'RS256', kid: 'rs256-1' })}.${header({ iss: auth.issuer })}.${sig}`,
        ),
      fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/).map(async (junk) => junk),
    )
    const network = [0x2001, 0xdb8, 0x1, 0x2]
    const flood = fc.array(fc.tuple(addressIn(network), badToken), { minLength: 100, maxLength: 140 })
    const [sample] = fc.sample(flood, { numRuns: 1, seed: Date.now() })
    const statuses: number[] = []
    let fetchesAtBudget = 0
    for (const [address, token] of sample!) {
      const res = await getTicket(app, await token, address)
      statuses.push(res.statusCode)
      if (statuses.length === 60) fetchesAtBudget = auth.jwksFetches()
      if (res.statusCode === 429) {
        assert.equal(res.json().code, 'TG_ERR_ACCESS_RATE_LIMITED')
        assert.match(res.json().error, /address 2001:db8:1:2::\/64 \(60 failed authentications per 60 s/)
        const retryAfter = Number(res.headers['retry-after'])
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${res.headers['retry-after']}`)
      }
    }
    assert.deepEqual(
      statuses,
      [...new Array(60).fill(401), ...new Array(sample!.length - 60).fill(429)],
      'the first 60 failures are judged (401), every later one is refused unjudged (429)',
    )
    assert.equal(auth.jwksFetches(), fetchesAtBudget, 'no JWKS fetch, so no verification, past the budget')
    // The same /64 with a token verified before, or a static token: still served. A new token: not judged.
    assert.equal((await getTicket(app, remembered, '2001:db8:1:2:ffff::9')).statusCode, 200)
    const fresh = await auth.sign({ client_id: 'agent-a', aud: GATEWAY, jti: 'new' })
    assert.equal((await getTicket(app, fresh, '2001:0db8:0001:0002::7')).statusCode, 429)
    // Another /64, and an IPv4 address, are judged as before.
    const elsewhere = await auth.sign({ client_id: 'agent-a', aud: GATEWAY }, { kid: 'unknown-x' })
    assert.equal((await getTicket(app, elsewhere, '2001:db8:1:3::1')).statusCode, 401)
    assert.equal((await getTicket(app, fresh, '192.0.2.7')).statusCode, 200)
  })

  test('IPv4 counts per address and an IPv4-mapped address as the same one; the budget is configurable', async (t) => {
    const { app } = await exampleApp(
      t,
      `${TINY_CLIENT}rateLimits: { failedAuthentications: { max: 3, windowSeconds: 30 } }\n`,
    )
    const seen = new Set<string>()
    await fc.assert(
      fc.asyncProperty(fc.ipV4(), fc.stringMatching(/^[A-Za-z0-9]{16,40}$/), async (ip, token) => {
        fc.pre(!seen.has(ip))
        seen.add(ip)
        const spellings = [ip, `::ffff:${ip}`, `::FFFF:${ip}`, ip]
        const statuses = []
        for (const address of spellings) statuses.push((await getTicket(app, token, address)).statusCode)
        assert.deepEqual(statuses, [401, 401, 401, 429], ip)
        const limited = await getTicket(app, token, ip)
        assert.match(
          limited.json().error,
          new RegExp(`address ${ip.replaceAll('.', '\\.')} \\(3 failed authentications per 30 s`),
        )
        assert.equal(
          (await getTicket(app, STEADY, `::ffff:${ip}`)).statusCode,
          200,
          'a static token still passes',
        )
      }),
      { numRuns: 30 },
    )
  })
})

describe('refusals are logged at a bounded rate', () => {
  test('a flood of generated bad tokens writes at most 10 lines a second per reason, counting the rest', async (t) => {
    const lines: string[] = []
    const app = await loggedApp(t, lines, { TOOLGATE_CONFIG: await configFile(TINY_CLIENT) })
    const started = Date.now()
    let sent = 0
    await fc.assert(
      fc.asyncProperty(anyAddress, fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,80}$/), async (address, token) => {
        const res = await getTicket(app, token, address)
        assert.ok(res.statusCode === 401 || res.statusCode === 429, `${res.statusCode} ${res.body}`)
        sent++
      }),
      { numRuns: 400 },
    )
    // One more, in a second of its own: its line tells how many of the flood's were left out.
    await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 5))
    assert.equal((await getTicket(app, 'one-more-bad-token', '198.51.100.1')).statusCode, 401)
    sent++
    const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1
    const refusals = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'access refused' && line.reason === 'bad_token')
    assert.ok(refusals.length <= 10 * seconds, `${refusals.length} bad_token lines in ${seconds} s`)
    const metrics = parsePrometheusText((await app.inject('/metrics')).body)
    const badTokens = sampleValue(metrics, 'toolgate_access_refusals_total', {
      client: 'unknown',
      reason: 'bad_token',
    })
    const told = refusals.reduce((sum, line) => sum + 1 + (line.suppressed ?? 0), 0)
    assert.equal(told, badTokens, 'each bad token is a line, or counted in the next line of its reason')
    assert.ok(refusals.length < badTokens, `${refusals.length} lines for ${badTokens} bad tokens`)
    const counted = metrics.samples
      .filter((s) => s.name === 'toolgate_access_refusals_total' && s.labels.client === 'unknown')
      .reduce((sum, s) => sum + s.value, 0)
    assert.equal(counted, sent, 'the metric counts every refusal')
  })
})
