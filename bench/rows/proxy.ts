// Row 3: POST /tools/:name through the gateway to a local upstream, against @fastify/reply-from
// forwarding the same request unchanged: closed-loop throughput, then the p99 latency each adds
// over calling the upstream directly, open loop at a fixed rate; the same call by a JWT client
// (3c) and through MCP's tools/call (3d), each against the plain call on the same gateway.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { request } from 'undici'
import { get } from '../lib/capture.js'
import { comparePair, type Target } from '../lib/compare.js'
import { BASELINE_ENV, GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { ITEMS_TOOL_ID, itemsSetup } from '../lib/items-spec.js'
import { type LoadRequest, type LoadResult, problemsOf, runOpen, runStallProbe } from '../lib/load.js'
import { mcpRequest } from '../lib/mcp.js'
import { benchScript } from '../lib/paths.js'
import { type Started, startGateway, startItemsUpstream, startScriptServer, stop } from '../lib/processes.js'
import { ms, type RowResult, rangeOf, ratioRow } from '../lib/report.js'
import { round, summarize } from '../lib/stats.js'

const ARGUMENTS = JSON.stringify({ itemId: '42' })
const DIRECT: LoadRequest = { method: 'GET', path: '/items/42' }
/** Enough for the open loop never to wait for a free connection at a moderate rate. */
const OPEN_LOOP_CONNECTIONS = 32
/**
 * A generator this late against its schedule (p99) bunches its requests: the run is no longer a
 * fixed rate, so it does not count. Smaller lags are the box's jitter and are reported as a note.
 */
const MAX_SENDER_LAG_MS = 10
/** A run that did not deliver this share of the rate was not the load it claims. */
const MIN_RATE_SHARE = 0.95
const STALL_PROBE_SECONDS = 1

export async function proxyRows(ctx: RowContext): Promise<RowResult[]> {
  const started: Started[] = []
  try {
    const upstream = await startItemsUpstream(ctx.cpus.upstream)
    started.push(upstream)
    const { specs, configFile } = await itemsSetup(
      ctx.tmp,
      'proxy',
      `services:\n  items:\n    upstream: ${upstream.url}\n`,
    )
    ctx.log('row 3: starting the gateway, reply-from and the upstream')
    const gateway = await startGateway(
      'gateway',
      { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: configFile },
      ctx.cpus.server,
    )
    started.push(gateway)
    const replyFrom = await startScriptServer(
      'reply-from',
      benchScript('servers', 'reply-from.js'),
      [upstream.url],
      ctx.cpus.server,
      BASELINE_ENV,
    )
    started.push(replyFrom)
    const call = await toolCall(gateway.url)
    const checked = await sameAnswers(call, [gateway.url, replyFrom.url], upstream.url)
    const rows = [
      await throughputRow(ctx, gateway, replyFrom, call, checked),
      await latencyRow(ctx, { gateway, replyFrom, upstream }, call, checked),
    ]
    const issuer = await startIssuer()
    try {
      rows.push(await jwtRow(ctx, { upstream, gateway, issuer }, call))
    } finally {
      await issuer.close()
    }
    rows.push(await mcpCallRow(ctx, gateway, upstream, call, checked))
    return rows
  } finally {
    for (const server of started.reverse()) await stop(server)
  }
}

interface Issuer {
  readonly url: string
  /** A token of the bench's JWT client, valid for an hour. */
  readonly token: string
  close(): Promise<void>
}

/** An OIDC issuer's JWKS on loopback (fetched once by the gateway), and a token it signed. */
async function startIssuer(): Promise<Issuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' }
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const token = await new SignJWT({ client_id: JWT_CLIENT, aud: JWT_AUDIENCE })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(url)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey)
  return { url, token, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

const JWT_CLIENT = 'bench-agent'
const JWT_AUDIENCE = 'https://gateway.bench'

/**
 * Row 3c: the same tool call by a JWT client against access open, same run. The request carries
 * the token on both sides (open access never reads it), so only the access work differs.
 */
async function jwtRow(
  ctx: RowContext,
  servers: { upstream: Started; gateway: Started; issuer: Issuer },
  call: LoadRequest,
): Promise<RowResult> {
  const { specs, configFile } = await itemsSetup(
    ctx.tmp,
    'proxy-jwt',
    `services:\n  items:\n    upstream: ${servers.upstream.url}\n`,
    [
      `publicUrl: ${JWT_AUDIENCE}`,
      'clients:',
      `  - id: ${JWT_CLIENT}`,
      `    jwt: { issuer: "${servers.issuer.url}", jwksUrl: "${servers.issuer.url}/jwks" }`,
      '    rateLimit: { max: 100000000 }',
      '',
    ].join('\n'),
  )
  const secured = await startGateway(
    'gateway-jwt',
    { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: configFile },
    ctx.cpus.server,
  )
  try {
    const authorized = {
      ...call,
      headers: { ...call.headers, authorization: `Bearer ${servers.issuer.token}` },
    }
    const problems = await sameAnswers(authorized, [secured.url, servers.gateway.url], servers.upstream.url)
    const anonymous = await request(secured.url + call.path, {
      method: 'POST',
      headers: call.headers ?? {},
      body: call.body ?? '',
    })
    await anonymous.body.dump()
    if (anonymous.statusCode !== 401)
      problems.push(`gateway-jwt answered ${anonymous.statusCode} without a token, not 401`)
    const figure = { requests: [authorized], connections: 50, pipelining: 1, expectedStatus: 200 }
    const label = `POST ${call.path} -c50 -p1 with a JWT client vs access open`
    ctx.log(`row 3: ${label}`)
    const pair = await comparePair(
      { label: 'JWT client', origin: secured.url },
      { label: 'open', origin: servers.gateway.url },
      figure,
      ctx.options,
      ctx.cpus.client,
    )
    return ratioRow(pair, {
      id: '3c',
      row: 'proxy',
      figure: label,
      metric: 'req/s ratio vs access open',
      target: { op: '>=', value: 0.9 },
      problems,
      // The token is left out of the results: the figure is the same request without it.
      details: { ...figure, requests: [call], ...pair },
    })
  } finally {
    await stop(secured)
  }
}

/**
 * Row 3d: the same tool call through MCP's tools/call (2026-07-28, stateless: no handshake, no
 * session; lib/mcp.ts) against `POST /tools/:name` on the same gateway, same run, ABBA. The
 * correctness pass checks that the MCP answer is a JSON result, not an error, carrying the
 * upstream's JSON as structuredContent and as text.
 */
async function mcpCallRow(
  ctx: RowContext,
  gateway: Started,
  upstream: Started,
  call: LoadRequest,
  checked: string[],
): Promise<RowResult> {
  const name = call.path.slice('/tools/'.length)
  const viaMcp = mcpRequest('tools/call', { name, arguments: JSON.parse(call.body ?? '{}') })
  const problems = [...checked, ...(await mcpCallProblems(gateway.url, viaMcp, upstream.url))]
  const figure = { requests: [call], connections: 50, pipelining: 1, expectedStatus: 200 }
  const label = `POST /mcp tools/call ${name} -c50 -p1 vs POST ${call.path}`
  ctx.log(`row 3: ${label}`)
  const pair = await comparePair(
    { label: 'MCP tools/call', origin: gateway.url, requests: [viaMcp] },
    { label: '/tools/:name', origin: gateway.url, requests: [call] },
    figure,
    ctx.options,
    ctx.cpus.client,
  )
  return ratioRow(pair, {
    id: '3d',
    row: 'proxy',
    figure: label,
    metric: 'req/s ratio vs /tools/:name',
    target: { op: '>=', value: 0.7 },
    problems,
    details: { ...figure, requests: [viaMcp, call], ...pair },
  })
}

/** Why the MCP tools/call answer is not the upstream's item; empty when it is. */
async function mcpCallProblems(origin: string, viaMcp: LoadRequest, upstream: string): Promise<string[]> {
  const item = JSON.parse((await get(upstream + DIRECT.path)).body.toString()) as unknown
  const response = await request(origin + viaMcp.path, {
    method: 'POST',
    headers: viaMcp.headers ?? {},
    body: viaMcp.body ?? '',
  })
  const text = await response.body.text()
  const type = String(response.headers['content-type'] ?? '')
  const what = `MCP tools/call answered ${response.statusCode} ${type}`
  if (response.statusCode !== 200 || !type.startsWith('application/json'))
    return [`${what}: ${text.slice(0, 200)}`]
  const result = (JSON.parse(text) as { result?: Record<string, unknown> }).result
  const content = result?.content as { type: string; text: string }[] | undefined
  const same = (value: unknown) => JSON.stringify(value) === JSON.stringify(item)
  if (
    !result ||
    result.isError === true ||
    !same(result.structuredContent) ||
    !same(JSON.parse(content?.[0]?.text ?? 'null'))
  )
    return [`${what} without the upstream's item: ${text.slice(0, 300)}`]
  return []
}

/** The tool call as an agent posts it, by the tool's wire name from the gateway's own catalog. */
export async function toolCall(origin: string): Promise<LoadRequest> {
  const catalog = JSON.parse((await get(`${origin}/catalog`)).body.toString()) as {
    tools: { id: string; wireName: string }[]
  }
  const tool = catalog.tools.find((t) => t.id === ITEMS_TOOL_ID)
  if (!tool) throw new Error(`${ITEMS_TOOL_ID} is not in the gateway's catalog`)
  return {
    method: 'POST',
    path: `/tools/${tool.wireName}`,
    headers: { 'content-type': 'application/json' },
    body: ARGUMENTS,
  }
}

/** The correctness pass: both proxies answer 200 with the upstream's exact bytes. */
export async function sameAnswers(call: LoadRequest, proxies: string[], upstream: string): Promise<string[]> {
  const direct = await get(upstream + DIRECT.path)
  const problems: string[] = []
  for (const origin of proxies) {
    const response = await request(origin + call.path, {
      method: 'POST',
      headers: call.headers ?? {},
      body: call.body ?? '',
    })
    const body = Buffer.from(await response.body.arrayBuffer())
    if (response.statusCode !== 200 || !body.equals(direct.body)) {
      problems.push(`${origin}${call.path} answered ${response.statusCode} ${body.toString().slice(0, 200)}`)
    }
  }
  return problems
}

async function throughputRow(
  ctx: RowContext,
  gateway: Started,
  replyFrom: Started,
  call: LoadRequest,
  checked: string[],
): Promise<RowResult> {
  const figure = { requests: [call], connections: 50, pipelining: 1, expectedStatus: 200 }
  const label = `POST ${call.path} -c50 -p1 (closed loop)`
  ctx.log(`row 3: ${label}`)
  const pair = await comparePair(
    { label: 'toolgate', origin: gateway.url },
    { label: 'reply-from', origin: replyFrom.url },
    figure,
    ctx.options,
    ctx.cpus.client,
  )
  return ratioRow(pair, {
    id: '3a',
    row: 'proxy',
    figure: label,
    metric: 'req/s ratio vs reply-from',
    target: { op: '>=', value: 1.0 },
    problems: checked,
    details: { ...figure, ...pair },
  })
}

interface LatencyTargets {
  readonly gateway: Started
  readonly replyFrom: Started
  readonly upstream: Started
}

/** Open loop: direct, toolgate and reply-from interleaved, the order rotating every run. */
async function latencyRow(
  ctx: RowContext,
  servers: LatencyTargets,
  call: LoadRequest,
  checked: string[],
): Promise<RowResult> {
  const { rate, runs, warmup, duration } = ctx.options
  const label = `POST ${call.path} p99 added over direct @ ${rate} req/s (open loop)`
  ctx.log(`row 3: ${label}`)
  const sides: [Target & { request: LoadRequest }, LoadResult[]][] = [
    [{ label: 'direct', origin: servers.upstream.url, request: DIRECT }, []],
    [{ label: 'toolgate', origin: servers.gateway.url, request: call }, []],
    [{ label: 'reply-from', origin: servers.replyFrom.url, request: call }, []],
  ]
  const problems = [...checked]
  const run = async (target: Target & { request: LoadRequest }, seconds: number) => {
    const load = { origin: target.origin, request: target.request, rate, duration: seconds }
    const result = await runOpen({ ...load, connections: OPEN_LOOP_CONNECTIONS }, ctx.cpus.client)
    for (const problem of problemsOf(result, 200)) problems.push(`${target.label}: ${problem}`)
    const lag = result.senderLagP99 ?? 0
    if (lag > MAX_SENDER_LAG_MS) {
      problems.push(`${target.label}: the load generator ran ${lag.toFixed(1)} ms behind its schedule (p99)`)
    }
    if (result.rps < rate * MIN_RATE_SHARE) {
      problems.push(`${target.label}: ${result.rps.toFixed(0)} req/s delivered of ${rate}`)
    }
    return result
  }
  const stalls = {
    server: await runStallProbe(STALL_PROBE_SECONDS, ctx.cpus.server),
    client: await runStallProbe(STALL_PROBE_SECONDS, ctx.cpus.client),
  }
  for (const [target] of sides) await run(target, warmup)
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < sides.length; j++) {
      const [target, results] = sides[(i + j) % sides.length]!
      results.push(await run(target, duration))
    }
  }
  const [direct, ours, theirs] = sides.map(([, results]) => results) as [
    LoadResult[],
    LoadResult[],
    LoadResult[],
  ]
  const added = summarize(ours.map((r, i) => r.p99 - direct[i]!.p99))
  const addedByReplyFrom = summarize(theirs.map((r, i) => r.p99 - direct[i]!.p99))
  // Issue 44's target: what the gateway adds at p99, over what reply-from adds in the same run.
  const beyond = summarize(ours.map((r, i) => r.p99 - theirs[i]!.p99))
  const p99 = (results: LoadResult[]) => summarize(results.map((r) => r.p99)).median
  const p50 = (results: LoadResult[]) => summarize(results.map((r) => r.p50)).median
  const lags = summarize([...direct, ...ours, ...theirs].map((r) => r.senderLagP99 ?? 0))
  return {
    id: '3b',
    row: 'proxy',
    figure: label,
    metric: 'ms added (p99) beyond reply-from',
    value: round(beyond.median, 2),
    target: { op: '<=', value: 1 },
    candidate: `adds ${ms(added.median)}: p99 ${ms(p99(ours))}, p50 ${ms(p50(ours))}`,
    baseline: `reply-from adds ${ms(addedByReplyFrom.median)}; direct p99 ${ms(p99(direct))}`,
    range: rangeOf(beyond),
    problems,
    notes: [
      `the load generator's lateness against its schedule, p99: median ${ms(lags.median)}, worst ${ms(lags.max)}. It is the same for every side, but a p99 difference finer than it is noise`,
      `box noise, busy loop ${STALL_PROBE_SECONDS} s per CPU: server CPU ${stalls.server.stalls} stalls > 1 ms (worst ${ms(stalls.server.worstMs)}), client CPU ${stalls.client.stalls} (worst ${ms(stalls.client.worstMs)})`,
    ],
    details: {
      rate,
      stalls,
      senderLagP99: lags,
      connections: OPEN_LOOP_CONNECTIONS,
      added,
      addedByReplyFrom,
      direct,
      toolgate: ours,
      replyFrom: theirs,
    },
  }
}
