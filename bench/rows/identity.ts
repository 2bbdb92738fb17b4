// Row 11 (issue 45): a tool call whose OAuth2 token the gateway fetched once and serves from its
// cache, against the same call carrying a static bearer token, on the same spec, same run.
import { copyFile, mkdir } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { request } from 'undici'
import { get } from '../lib/capture.js'
import { comparePair } from '../lib/compare.js'
import { GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { benchConfig } from '../lib/items-spec.js'
import type { LoadRequest } from '../lib/load.js'
import { fromRoot } from '../lib/paths.js'
import { type Started, startGateway, startItemsUpstream, stop } from '../lib/processes.js'
import { type RowResult, ratioRow } from '../lib/report.js'

const CALL: LoadRequest = {
  method: 'POST',
  path: '/tools/items_get_item',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ itemId: '42' }),
}

interface TokenEndpoint {
  readonly url: string
  requests(): number
  close(): Promise<void>
}

/** A token endpoint on loopback issuing one long-lived token: the run measures the cached path. */
async function startTokenEndpoint(): Promise<TokenEndpoint> {
  let requests = 0
  const server = createServer((req, res) => {
    req.resume()
    requests++
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({ access_token: `bench-fetched-${requests}`, token_type: 'Bearer', expires_in: 3600 }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

async function gatewayWith(
  ctx: RowContext,
  name: string,
  credential: string,
  upstream: string,
): Promise<Started> {
  const dir = join(ctx.tmp, name)
  const specs = join(dir, 'specs')
  await mkdir(specs, { recursive: true })
  await copyFile(fromRoot('bench', 'specs', 'items-oauth.yaml'), join(specs, 'items.yaml'))
  const config = await benchConfig(
    dir,
    [
      'access: open',
      'rateLimits:',
      '  anonymous: { max: 100000000 }',
      'services:',
      '  items:',
      `    upstream: ${upstream}`,
      `    credentials: { oauth: ${credential} }`,
      '',
    ].join('\n'),
  )
  return startGateway(name, { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: config }, ctx.cpus.server)
}

export async function identityRows(ctx: RowContext): Promise<RowResult[]> {
  const started: Started[] = []
  const tokens = await startTokenEndpoint()
  try {
    const upstream = await startItemsUpstream(ctx.cpus.upstream)
    started.push(upstream)
    ctx.log('row 11: starting a gateway with a fetched OAuth2 token and one with a static bearer')
    const fetched = await gatewayWith(
      ctx,
      'identity-fetched',
      `{ clientId: bench, clientSecret: { value: bench-secret }, tokenUrl: ${tokens.url} }`,
      upstream.url,
    )
    started.push(fetched)
    const fixed = await gatewayWith(ctx, 'identity-static', '{ value: bench-static-token }', upstream.url)
    started.push(fixed)
    const problems = await sameAnswers([fetched.url, fixed.url], upstream.url)
    const figure = { requests: [CALL], connections: 50, pipelining: 1, expectedStatus: 200 }
    const label = `POST ${CALL.path} -c50 -p1 with a cached fetched OAuth2 token vs a static bearer`
    ctx.log(`row 11: ${label}`)
    const pair = await comparePair(
      { label: 'fetched token', origin: fetched.url },
      { label: 'static bearer', origin: fixed.url },
      figure,
      ctx.options,
      ctx.cpus.client,
    )
    // One token for the whole run: any more means the cache missed under load.
    if (tokens.requests() !== 1)
      problems.push(`the token endpoint was asked ${tokens.requests()} times, not once`)
    return [
      ratioRow(pair, {
        id: '11',
        row: 'identity',
        figure: label,
        metric: 'req/s ratio vs static bearer',
        target: { op: '>=', value: 0.95 },
        problems,
        details: { ...figure, tokenRequests: tokens.requests(), ...pair },
      }),
    ]
  } finally {
    for (const server of started.reverse()) await stop(server)
    await tokens.close()
  }
}

/** The correctness pass: both gateways answer 200 with the upstream's exact bytes. */
async function sameAnswers(gateways: string[], upstream: string): Promise<string[]> {
  const direct = await get(`${upstream}/items/42`)
  const problems: string[] = []
  for (const origin of gateways) {
    const response = await request(origin + CALL.path, {
      method: 'POST',
      headers: CALL.headers ?? {},
      body: CALL.body ?? '',
    })
    const body = Buffer.from(await response.body.arrayBuffer())
    if (response.statusCode !== 200 || !body.equals(direct.body))
      problems.push(`${origin}${CALL.path} answered ${response.statusCode} ${body.toString().slice(0, 200)}`)
  }
  return problems
}
