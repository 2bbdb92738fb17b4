// Row 2: GET /api/sessions/:code/metadata with sessions in Redis against the same bare route
// sending the same manifest bytes without asking Redis.
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { request } from 'undici'
import { capture, compareAnswers, startStaticBaseline } from '../lib/capture.js'
import { comparePair } from '../lib/compare.js'
import { GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { itemsSetup } from '../lib/items-spec.js'
import { type Started, startGateway, stop } from '../lib/processes.js'
import { type RowResult, ratioRow } from '../lib/report.js'

const FIGURE = 'GET /api/sessions/:code/metadata (Redis) -c100 -p10'
const TARGET = { op: '>=', value: 0.7 } as const

export async function sessionRows(ctx: RowContext): Promise<RowResult[]> {
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379'
  // A prefix of this run only, so the keys can be found and deleted afterwards.
  const prefix = `toolgate-bench-${process.pid}-${Date.now()}:`
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null })
  try {
    await redis.connect()
    await redis.ping()
  } catch (err) {
    redis.disconnect()
    return [unavailable(`Redis is not reachable at ${redisUrl} (BENCH_REDIS_URL): ${(err as Error).message}`)]
  }
  try {
    return [await measure(ctx, redisUrl, prefix)]
  } finally {
    const deleted = await deleteKeys(redis, prefix)
    ctx.log(`row 2: deleted ${deleted} Redis key(s) under ${prefix}`)
    await redis.quit()
  }
}

async function measure(ctx: RowContext, redisUrl: string, prefix: string): Promise<RowResult> {
  // Production closes session creation until a client may create sessions (plugins/access.ts).
  const token = randomBytes(16).toString('hex')
  const { specs, configFile } = await itemsSetup(
    ctx.tmp,
    'sessions',
    `sessions:\n  createToken: { value: ${token} }\n`,
  )
  ctx.log('row 2: starting the gateway with Redis sessions')
  const gateway = await startGateway(
    'gateway',
    {
      ...GATEWAY_ENV,
      SPECS_DIR: specs,
      TOOLGATE_CONFIG: configFile,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
    },
    ctx.cpus.server,
  )
  let baseline: Started | undefined
  let code: string | undefined
  try {
    code = await createSession(gateway.url, token)
    const path = `/api/sessions/${code}/metadata`
    baseline = await startStaticBaseline(ctx, 'sessions-baseline', [
      { route: '/api/sessions/:code/metadata', captured: await capture(gateway.url, path) },
    ])
    ctx.log(`row 2: ${FIGURE}`)
    const checked = await compareAnswers(gateway.url, baseline.url, path, {})
    const figure = {
      requests: [{ method: 'GET', path } as const],
      connections: 100,
      pipelining: 10,
      expectedStatus: 200,
    }
    const pair = await comparePair(
      { label: 'toolgate', origin: gateway.url },
      { label: 'bare Fastify', origin: baseline.url },
      figure,
      ctx.options,
      ctx.cpus.client,
    )
    return ratioRow(pair, {
      id: '2',
      row: 'sessions',
      figure: FIGURE,
      metric: 'req/s ratio',
      target: TARGET,
      problems: checked,
      details: { ...figure, ...pair },
    })
  } finally {
    if (code)
      await request(`${gateway.url}/api/sessions/${code}`, { method: 'DELETE' }).then((r) => r.body.dump())
    await stop(baseline)
    await stop(gateway)
  }
}

async function createSession(origin: string, token: string): Promise<string> {
  const response = await request(`${origin}/api/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ ttlSeconds: 3_600 }),
  })
  const body = (await response.body.json()) as { code?: string }
  if (response.statusCode !== 201 || !body.code) {
    throw new Error(`POST /api/sessions answered ${response.statusCode}: ${JSON.stringify(body)}`)
  }
  return body.code
}

async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000)
    if (keys.length > 0) deleted += await redis.del(...keys)
    cursor = next
  } while (cursor !== '0')
  return deleted
}

function unavailable(problem: string): RowResult {
  return {
    id: '2',
    row: 'sessions',
    figure: FIGURE,
    metric: 'req/s ratio',
    value: Number.NaN,
    target: TARGET,
    candidate: '—',
    baseline: '—',
    problems: [problem],
  }
}
