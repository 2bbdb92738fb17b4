// Row 5: requests to /discovery and /openai.json while the spec file is rewritten 10 times, one
// write a second, alternately adding and removing an operation. Every rewrite is a new catalog,
// so a gateway that hot-reloads shows up to 11 Catalog-Version values; every answer must be 2xx.
// Row 5b: how long a reload of Stripe + Kubernetes (1,454 tools) takes when no file changed.
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { get } from '../lib/capture.js'
import { GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { benchConfig, ITEMS_SPEC, itemsSetup } from '../lib/items-spec.js'
import { runClosed } from '../lib/load.js'
import { fromRoot } from '../lib/paths.js'
import { type Started, startGateway, stop } from '../lib/processes.js'
import { lastReload, nextReload, type ReloadRecord } from '../lib/reloads.js'
import { ms, type RowResult, rangeOf } from '../lib/report.js'
import { round, summarize } from '../lib/stats.js'

const REWRITES = 10
const INTERVAL_MS = 1_000
const LEAD_MS = 2_000 // load before the first write
const TAIL_MS = 4_000 // after the last write: a reload lands within ~2 s of it

/** Rewrite i: the summary names the rewrite (a new catalog each time); odd ones add listItems. */
export function rewrite(spec: string, i: number): string {
  const renamed = spec.replace('summary: Get an item', `summary: Get an item (rewrite ${i})`)
  if (i % 2 === 0) return renamed
  return `${renamed.trimEnd()}\n  /items:\n    get:\n      operationId: listItems\n      summary: List items\n      responses:\n        '200':\n          description: The items.\n`
}

export async function reloadRows(ctx: RowContext): Promise<RowResult[]> {
  return [await rewritesRow(ctx), await unchangedReloadRow(ctx)]
}

async function rewritesRow(ctx: RowContext): Promise<RowResult> {
  const { specs, configFile } = await itemsSetup(ctx.tmp, 'reload', '')
  const file = join(specs, 'items.yaml')
  const original = await readFile(ITEMS_SPEC, 'utf8')
  ctx.log('row 5: starting the gateway')
  const gateway = await startGateway(
    'gateway',
    { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: configFile },
    ctx.cpus.server,
  )
  try {
    const versionBefore = await catalogVersion(gateway.url)
    const duration = (LEAD_MS + REWRITES * INTERVAL_MS + TAIL_MS) / 1_000
    ctx.log(`row 5: ${REWRITES} rewrites of items.yaml under load (${duration} s)`)
    const load = runClosed(
      {
        origin: gateway.url,
        requests: [
          { method: 'GET', path: '/discovery' },
          { method: 'GET', path: '/openai.json' },
        ],
        connections: 10,
        pipelining: 1,
        duration,
        watchHeader: 'catalog-version',
      },
      ctx.cpus.client,
    )
    await sleep(LEAD_MS)
    for (let i = 1; i <= REWRITES; i++) {
      await writeFile(file, rewrite(original, i))
      await sleep(INTERVAL_MS)
    }
    const result = await load
    const versionAfter = await catalogVersion(gateway.url)
    const non2xx = Object.entries(result.statusCodes)
      .filter(([status]) => !status.startsWith('2'))
      .reduce((sum, [, count]) => sum + count, 0)
    const versions = result.headerValues?.length ?? 0
    return {
      id: '5',
      row: 'reload',
      figure: `GET /discovery + /openai.json -c10 during ${REWRITES} spec rewrites`,
      // A reset connection fails a client as surely as a 503: both count.
      metric: 'non-2xx or failed',
      value: non2xx + result.errors + result.timeouts,
      target: { op: '==', value: 0 },
      candidate: `${result.total} answers, ${versions} Catalog-Version value(s)`,
      baseline: '—',
      problems: [],
      notes: [
        versionAfter === versionBefore
          ? `the catalog never changed (${versionBefore}): this build does not hot-reload SPECS_DIR, so the row shows no reload yet`
          : `catalog ${versionBefore} → ${versionAfter}; ${versions} distinct versions seen by clients (11 = every rewrite served)`,
      ],
      details: {
        ...result,
        non2xx,
        versionBefore,
        versionAfter,
        rewrites: REWRITES,
        intervalMs: INTERVAL_MS,
      },
    }
  } finally {
    await stop(gateway)
  }
}

const UNCHANGED_SPECS = ['stripe.json', 'kubernetes-v1.13.json'] as const

/**
 * Row 5b: SIGHUP (the operator's reload; there is no reload route) to a gateway serving Stripe +
 * Kubernetes from test/fixtures/real-world, nothing changed on disk. The figure is the reload's
 * own `durationMs` from /catalog/reloads: the gateway lists and hashes the files the last build
 * read, finds them unchanged, and starts no build. One reload warms up (page cache),
 * then BENCH_RUNS are measured, one after the other. No baseline: it is the gateway's own time.
 */
async function unchangedReloadRow(ctx: RowContext): Promise<RowResult> {
  const dir = join(ctx.tmp, 'reload-unchanged')
  const specs = join(dir, 'specs')
  await mkdir(specs, { recursive: true })
  for (const file of UNCHANGED_SPECS)
    await copyFile(fromRoot('test', 'fixtures', 'real-world', file), join(specs, file))
  ctx.log('row 5b: starting the gateway on Stripe + Kubernetes')
  const gateway = await startGateway(
    'gateway',
    { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: await benchConfig(dir) },
    ctx.cpus.server,
  )
  try {
    const tools = (JSON.parse((await get(`${gateway.url}/ready`)).body.toString()) as { tools: number }).tools
    const versionBefore = await catalogVersion(gateway.url)
    const problems: string[] = []
    ctx.log(`row 5b: 1 + ${ctx.options.runs} reloads (SIGHUP) with nothing changed, ${tools} tools`)
    await signalReload(gateway)
    const records: ReloadRecord[] = []
    const waits: number[] = []
    for (let i = 0; i < ctx.options.runs; i++) {
      const started = performance.now()
      const record = await signalReload(gateway)
      waits.push(performance.now() - started)
      records.push(record)
      if (record.swapped || record.outcome !== 'ok' || record.catalogVersion !== versionBefore)
        problems.push(
          `reload ${i + 1}: ${record.outcome}, swapped ${record.swapped}, version ${record.catalogVersion} (${versionBefore} before)${record.error ? `: ${record.error}` : ''}`,
        )
    }
    const durations = summarize(records.map((record) => record.durationMs))
    const seen = summarize(waits)
    return {
      id: '5b',
      row: 'reload',
      figure: `reload with nothing changed, SIGHUP, ${UNCHANGED_SPECS.join(' + ')} (${tools.toLocaleString('en-US')} tools)`,
      metric: 'ms',
      value: round(durations.median, 0),
      target: { op: '<=', value: 300 },
      candidate: ms(durations.median),
      baseline: '—',
      range: rangeOf(durations),
      problems,
      notes: [
        `durationMs of each reload record; from the signal until the harness saw the record (polling every 20 ms): median ${ms(seen.median)}`,
      ],
      details: { tools, catalogVersion: versionBefore, records, waitsMs: waits.map((w) => round(w, 1)) },
    }
  } finally {
    await stop(gateway)
  }
}

/** SIGHUP, then the reload it started (trigger `signal`), once recorded. */
async function signalReload(gateway: Started): Promise<ReloadRecord> {
  const after = await lastReload(gateway.url)
  gateway.child.kill('SIGHUP')
  return nextReload(gateway.url, after, (record) => record.trigger === 'signal')
}

async function catalogVersion(origin: string): Promise<string> {
  return (JSON.parse((await get(`${origin}/version`)).body.toString()) as { catalogVersion: string })
    .catalogVersion
}
