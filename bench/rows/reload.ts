// Row 5: requests to /discovery and /openai.json while the spec file is rewritten 10 times, one
// write a second, alternately adding and removing an operation. Every rewrite is a new catalog,
// so a gateway that hot-reloads shows up to 11 Catalog-Version values; every answer must be 2xx.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { get } from '../lib/capture.js'
import { GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { ITEMS_SPEC, itemsSetup } from '../lib/items-spec.js'
import { runClosed } from '../lib/load.js'
import { startGateway, stop } from '../lib/processes.js'
import type { RowResult } from '../lib/report.js'

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
    return [
      {
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
      },
    ]
  } finally {
    await stop(gateway)
  }
}

async function catalogVersion(origin: string): Promise<string> {
  return (JSON.parse((await get(`${origin}/version`)).body.toString()) as { catalogVersion: string })
    .catalogVersion
}
