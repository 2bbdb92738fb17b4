// Rows 1 and 6: the discovery documents of a 1,000-tool catalog (Kubernetes 1.13) against a bare
// Fastify route sending the same bytes, plain, 304 and brotli; then the gateway's RSS.

import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { createViewRenderers } from '../../src/formats/index.js'
import { type Captured, capture, compareAnswers, get, startStaticBaseline } from '../lib/capture.js'
import { comparePair, type Figure } from '../lib/compare.js'
import { formatBytes, GATEWAY_ENV, megabytes, type RowContext } from '../lib/context.js'
import { benchConfig } from '../lib/items-spec.js'
import { type LoadRequest, problemsOf, runClosed } from '../lib/load.js'
import { fromRoot } from '../lib/paths.js'
import { memoryOf, type Started, startGateway, stop } from '../lib/processes.js'
import { type RowResult, rangeOf, rps } from '../lib/report.js'
import { round } from '../lib/stats.js'

const KUBERNETES = fromRoot('test', 'fixtures', 'real-world', 'kubernetes-v1.13.json')
const DOCUMENTS = ['/discovery', '/openai.json', '/claude.json'] as const
const LETTERS = 'abcdefghi'

/** Above this, 100 connections × 10 pipelined would queue gigabytes: fewer, unpipelined connections. */
const LARGE_BODY = 1024 * 1024 // 1 MB

interface Variant {
  readonly name: string
  readonly headers: (captured: Captured) => Record<string, string>
  readonly expectedStatus: number
  readonly size: (captured: Captured) => number
}

const VARIANTS: readonly Variant[] = [
  { name: '', headers: () => ({}), expectedStatus: 200, size: (c) => c.body.length },
  { name: ' 304', headers: (c) => ({ 'if-none-match': c.etag }), expectedStatus: 304, size: () => 0 },
  {
    name: ' br',
    headers: () => ({ 'accept-encoding': 'br' }),
    expectedStatus: 200,
    size: (c) => c.brotli?.length ?? 0,
  },
]

function figureFor(path: string, variant: Variant, captured: Captured): Figure {
  const request: LoadRequest = { method: 'GET', path, headers: variant.headers(captured) }
  const large = variant.size(captured) > LARGE_BODY
  return {
    requests: [request],
    connections: large ? 10 : 100,
    pipelining: large ? 1 : 10,
    expectedStatus: variant.expectedStatus,
  }
}

export async function documentRows(
  ctx: RowContext,
  want: { compare: boolean; rss: boolean },
): Promise<RowResult[]> {
  const specs = join(ctx.tmp, 'kubernetes')
  await mkdir(specs, { recursive: true })
  await copyFile(KUBERNETES, join(specs, 'kubernetes-v1.13.json'))
  ctx.log('rows 1/6: starting the gateway on the Kubernetes catalog')
  const gateway = await startGateway(
    'gateway',
    { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: await benchConfig(join(ctx.tmp, 'documents')) },
    ctx.cpus.server,
  )
  let baseline: Started | undefined
  try {
    const tools = JSON.parse((await get(`${gateway.url}/ready`)).body.toString()).tools as number
    const captured = new Map<string, Captured>()
    for (const path of DOCUMENTS) captured.set(path, await capture(gateway.url, path))
    const rows: RowResult[] = []
    if (want.compare) {
      baseline = await startStaticBaseline(
        ctx,
        'documents-baseline',
        DOCUMENTS.map((path) => ({ route: path, captured: captured.get(path)! })),
      )
      rows.push(...(await compareDocuments(ctx, gateway, baseline, captured, tools)))
    } else {
      await loadOnly(ctx, gateway, captured)
    }
    if (want.rss) rows.push(await rssRow(gateway, baseline, tools))
    return rows
  } finally {
    await stop(baseline)
    await stop(gateway)
  }
}

async function compareDocuments(
  ctx: RowContext,
  gateway: Started,
  baseline: Started,
  captured: Map<string, Captured>,
  tools: number,
): Promise<RowResult[]> {
  const rows: RowResult[] = []
  for (const [p, path] of DOCUMENTS.entries()) {
    const document = captured.get(path)!
    for (const [v, variant] of VARIANTS.entries()) {
      const figure = figureFor(path, variant, document)
      const label = `GET ${path}${variant.name} (${formatBytes(variant.size(document))}) -c${figure.connections} -p${figure.pipelining}`
      ctx.log(`row 1: ${label}`)
      const checked = await compareAnswers(gateway.url, baseline.url, path, variant.headers(document))
      const pair = await comparePair(
        { label: 'toolgate', origin: gateway.url },
        { label: 'bare Fastify', origin: baseline.url },
        figure,
        ctx.options,
        ctx.cpus.client,
      )
      rows.push({
        id: `1${LETTERS[p * VARIANTS.length + v]}`,
        row: 'documents',
        figure: label,
        metric: 'req/s ratio',
        value: round(pair.ratio.median, 3),
        target: { op: '>=', value: 0.9 },
        candidate: rps(pair.candidate.rps.median),
        baseline: rps(pair.baseline.rps.median),
        range: rangeOf(pair.ratio),
        problems: [...checked, ...pair.problems],
        details: { tools, ...figure, ...pair },
      })
    }
  }
  return rows
}

/** `--only rss` without row 1: the same discovery load, on the gateway alone, one run per figure. */
async function loadOnly(ctx: RowContext, gateway: Started, captured: Map<string, Captured>) {
  for (const path of DOCUMENTS) {
    for (const variant of VARIANTS) {
      const figure = figureFor(path, variant, captured.get(path)!)
      ctx.log(`row 6: load on GET ${path}${variant.name}`)
      const result = await runClosed(
        { origin: gateway.url, ...figure, duration: ctx.options.duration },
        ctx.cpus.client,
      )
      const problems = problemsOf(result, figure.expectedStatus)
      if (problems.length > 0) throw new Error(`load on ${path}${variant.name}: ${problems.join('; ')}`)
    }
  }
}

async function rssRow(gateway: Started, baseline: Started | undefined, tools: number): Promise<RowResult> {
  const memory = await memoryOf(gateway.child.pid!)
  const bare = baseline ? await memoryOf(baseline.child.pid!) : undefined
  const catalog = (await get(`${gateway.url}/catalog`)).body
  const sizes = JSON.parse(catalog.toString()).sizes as Record<string, Record<string, { bytes: number }>>
  // Which formats a snapshot holds from the start; the others are rendered on demand or only measured.
  const eager = new Set(
    createViewRenderers({ opal: { name: '', version: '', authRequirements: {} } })
      .filter((renderer) => renderer.served === 'eager')
      .map((renderer) => renderer.format),
  )
  const formats = Object.entries(sizes.discover ?? {})
  const held = formats.filter(([format]) => eager.has(format))
  const heldBytes = held.reduce((sum, [, size]) => sum + size.bytes, 0)
  const describe = (list: typeof formats) =>
    list.map(([format, size]) => `${format} ${formatBytes(size.bytes)}`).join(', ')
  return {
    id: '6',
    row: 'rss',
    figure: `gateway RSS after the discovery load (${tools.toLocaleString('en-US')} tools)`,
    metric: 'MB',
    value: round(memory.rssMb, 1),
    target: { op: '<=', value: 200 },
    candidate: `${memory.rssMb.toFixed(0)} MB (peak ${memory.peakMb.toFixed(0)})`,
    baseline: bare ? `${bare.rssMb.toFixed(0)} MB (bare Fastify, 3 docs)` : '—',
    problems: [],
    notes: [
      `documents held per catalog version: ${describe(held)} = ${megabytes(heldBytes).toFixed(0)} MB; on demand or only measured: ${describe(formats.filter(([format]) => !eager.has(format)))}; /catalog ${formatBytes(catalog.length)} on its first request`,
    ],
    details: {
      ...memory,
      ...(bare ? { bareFastify: bare } : {}),
      documentBytes: { ...sizes.discover, catalog: catalog.length },
    },
  }
}
