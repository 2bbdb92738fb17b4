// Rows 1 and 6: the discovery documents of a 1,000-tool catalog (Kubernetes 1.13) against a bare
// Fastify route sending the same bytes, plain, 304 and brotli, and MCP's tools/list first page and
// server/discover against a bare POST route sending the same bytes; then the gateway's RSS after
// the load (6) and its peak while it reloads a changed Kubernetes spec (6b).

import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { createViewRenderers } from '../../src/formats/index.js'
import {
  type BaselineRoute,
  type Captured,
  capture,
  compareAnswers,
  get,
  startStaticBaseline,
} from '../lib/capture.js'
import { comparePair, type Figure } from '../lib/compare.js'
import { formatBytes, GATEWAY_ENV, megabytes, type RowContext } from '../lib/context.js'
import { benchConfig } from '../lib/items-spec.js'
import { type LoadRequest, problemsOf, runClosed } from '../lib/load.js'
import { MCP_REVISION, mcpRequest } from '../lib/mcp.js'
import { fromRoot } from '../lib/paths.js'
import { childPids, memoryOf, type Started, startGateway, stop, treeMemoryOf } from '../lib/processes.js'
import { lastReload, nextReload } from '../lib/reloads.js'
import { type RowResult, rangeOf, ratioRow } from '../lib/report.js'
import { round, summarize } from '../lib/stats.js'

const KUBERNETES = fromRoot('test', 'fixtures', 'real-world', 'kubernetes-v1.13.json')
const DOCUMENTS = ['/discovery', '/openai.json', '/claude.json'] as const
const LETTERS = 'abcdefghi'

/** Rows 1j and 1k: MCP answers, POSTs with a fixed JSON-RPC id, told apart by Mcp-Method. */
const MCP_FIGURES = [
  { id: '1j', request: mcpRequest('tools/list'), what: 'tools/list, first page' },
  { id: '1k', request: mcpRequest('server/discover'), what: 'server/discover' },
] as const

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
  let mcpBaseline: Started | undefined
  try {
    const tools = JSON.parse((await get(`${gateway.url}/ready`)).body.toString()).tools as number
    const captured = new Map<string, Captured>()
    for (const path of DOCUMENTS) captured.set(path, await capture(gateway.url, path))
    const documents: RowResult[] = []
    const memory: RowResult[] = []
    if (want.compare) {
      baseline = await startStaticBaseline(
        ctx,
        'documents-baseline',
        DOCUMENTS.map((path) => ({ route: path, captured: captured.get(path)! })),
      )
      documents.push(...(await compareDocuments(ctx, gateway, baseline, captured, tools)))
    } else {
      await loadOnly(ctx, gateway, captured)
    }
    if (want.rss) memory.push(await rssRow(gateway, baseline, tools))
    await stop(baseline)
    // MCP after row 6's reading: row 6 stays what it was, RSS after the discovery documents' load.
    if (want.compare) {
      const mcp = new Map<string, Captured>()
      for (const { id, request } of MCP_FIGURES)
        mcp.set(id, await capture(gateway.url, request.path, request))
      mcpBaseline = await startStaticBaseline(
        ctx,
        'mcp-baseline',
        MCP_FIGURES.map(
          ({ id, request }): BaselineRoute => ({
            route: request.path,
            method: 'POST',
            match: { header: 'mcp-method', value: request.headers!['mcp-method']! },
            captured: mcp.get(id)!,
          }),
        ),
      )
      documents.push(...(await compareMcp(ctx, gateway, mcpBaseline, mcp, tools)))
      await stop(mcpBaseline)
    }
    if (want.rss) memory.push(await reloadPeakRow(ctx, gateway, specs, tools))
    return [...documents, ...memory]
  } finally {
    await stop(mcpBaseline)
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
      const id = `1${LETTERS[p * VARIANTS.length + v]}`
      rows.push(await pairRow(ctx, gateway, baseline, { id, label, figure, checked, tools }))
    }
  }
  return rows
}

/**
 * Rows 1j and 1k: MCP answers on the same catalog, against the bare baseline answering the same
 * POST with the captured bytes. The correctness pass also checks that each answer is what its
 * figure claims (a JSON-RPC result; the first page of 100 tools and a cursor; the revision).
 */
async function compareMcp(
  ctx: RowContext,
  gateway: Started,
  baseline: Started,
  captured: Map<string, Captured>,
  tools: number,
): Promise<RowResult[]> {
  const rows: RowResult[] = []
  for (const { id, request, what } of MCP_FIGURES) {
    const answer = captured.get(id)!
    const large = answer.body.length > LARGE_BODY
    const figure: Figure = {
      requests: [request],
      connections: large ? 10 : 100,
      pipelining: large ? 1 : 10,
      expectedStatus: 200,
    }
    const label = `POST /mcp ${what} (${formatBytes(answer.body.length)}) -c${figure.connections} -p${figure.pipelining}`
    ctx.log(`row 1: ${label}`)
    const checked = [
      ...mcpAnswerProblems(request.headers!['mcp-method']!, answer.body),
      ...(await compareAnswers(gateway.url, baseline.url, request.path, {}, request)),
    ]
    rows.push(await pairRow(ctx, gateway, baseline, { id, label, figure, checked, tools }))
  }
  return rows
}

/** One row-1 figure: the gateway against bare Fastify sending the same bytes, ABBA pairs, ≥ 0.9×. */
async function pairRow(
  ctx: RowContext,
  gateway: Started,
  baseline: Started,
  {
    id,
    label,
    figure,
    checked,
    tools,
  }: { id: string; label: string; figure: Figure; checked: string[]; tools: number },
): Promise<RowResult> {
  const pair = await comparePair(
    { label: 'toolgate', origin: gateway.url },
    { label: 'bare Fastify', origin: baseline.url },
    figure,
    ctx.options,
    ctx.cpus.client,
  )
  return ratioRow(pair, {
    id,
    row: 'documents',
    figure: label,
    metric: 'req/s ratio',
    target: { op: '>=', value: 0.8 },
    problems: checked,
    details: { tools, ...figure, ...pair },
  })
}

/** Why a captured MCP answer is not the one its figure names; empty when it is. */
function mcpAnswerProblems(method: string, body: Buffer): string[] {
  let message: { id?: unknown; result?: Record<string, unknown>; error?: unknown }
  try {
    message = JSON.parse(body.toString())
  } catch {
    return [`${method}: the answer is not JSON: ${body.toString().slice(0, 200)}`]
  }
  if (!message.result)
    return [`${method}: no result: ${JSON.stringify(message.error ?? message).slice(0, 300)}`]
  if (message.id !== 1) return [`${method}: answered id ${JSON.stringify(message.id)}, not 1`]
  if (method === 'tools/list') {
    const listed = (message.result.tools as unknown[] | undefined)?.length ?? 0
    if (listed !== 100 || typeof message.result.nextCursor !== 'string')
      return [`tools/list: ${listed} tools and no next cursor, not a first page of 100`]
  }
  if (method === 'server/discover') {
    const versions = message.result.supportedVersions as unknown[] | undefined
    if (!versions?.includes(MCP_REVISION)) return [`server/discover: ${MCP_REVISION} is not supported`]
  }
  return []
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
  const own = await memoryOf(gateway.child.pid!)
  // A build process still running (none should be, at rest) counts with the gateway.
  const tree = await treeMemoryOf(gateway.child.pid!)
  const memory = { ...own, rssMb: tree.rssMb }
  const bare = baseline ? await memoryOf(baseline.child.pid!) : undefined
  const catalog = (await get(`${gateway.url}/catalog`)).body
  // What the gateway keeps of it: the brotli bytes a client that accepts br is sent as they are.
  const catalogKept = (await get(`${gateway.url}/catalog`, { 'accept-encoding': 'br' })).body
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
    figure: `gateway RSS after the discovery load (${tools.toLocaleString('en-US')} tools), against bare Fastify holding the same documents`,
    metric: 'RSS ratio vs bare',
    // Issue 44's target: at most 1.5× bare Fastify's RSS; no ratio (a failed row) without the baseline.
    value: bare ? round(memory.rssMb / bare.rssMb, 2) : Number.NaN,
    target: { op: '<=', value: 1.5 },
    candidate: `${memory.rssMb.toFixed(0)} MB (peak ${memory.peakMb.toFixed(0)})`,
    baseline: bare ? `${bare.rssMb.toFixed(0)} MB (bare Fastify, 3 docs)` : '—',
    problems: bare ? [] : ['no bare Fastify in this run: the ratio needs it'],
    notes: [
      ...(tree.children.size > 0
        ? [
            `${tree.children.size} child process(es) of the gateway counted in: ${(tree.rssMb - own.rssMb).toFixed(0)} MB`,
          ]
        : []),
      `documents held per catalog version: ${describe(held)} = ${megabytes(heldBytes).toFixed(0)} MB; on demand or only measured: ${describe(formats.filter(([format]) => !eager.has(format)))}; /catalog ${formatBytes(catalog.length)}, kept as ${formatBytes(catalogKept.length)} of brotli from its first request`,
    ],
    details: {
      ...memory,
      ...(bare ? { bareFastify: bare } : {}),
      documentBytes: { ...sizes.discover, catalog: catalog.length, catalogKept: catalogKept.length },
    },
  }
}

/** A field of /proc/<pid>/status, as a number (kB for the Vm* fields). */
async function statusField(pid: number, field: string): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN)
}

/** How long to wait, at most, for the build process to finish counting tokens after a swap. */
const WORKER_EXIT_MS = 60_000

/**
 * Row 6b: the gateway's peak RSS while it reloads a changed Kubernetes spec (one operation's
 * description renamed per run, so every run is a new catalog version, built, rendered and swapped
 * in), its catalog build process included (issue 44: each build runs in a child process). Before
 * each run the gateway's high-water mark is reset (`5` to /proc/<pid>/clear_refs), so its VmHWM
 * afterwards is its peak in that reload alone, exact; the build process is fresh, and its VmHWM is
 * read every 10 ms until it exits. The figure is the sum of the two peaks, an upper bound (they
 * need not coincide); the sum of VmRSS of the gateway and its children, sampled every 10 ms, is in
 * the note, a lower bound. The file is renamed in, as a deploy writes it, and the watcher reloads
 * it. A run ends when the reload is recorded and the build process (which counts tokens after the
 * swap) has exited: the gateway has no child and is back to its thread count from before.
 */
async function reloadPeakRow(
  ctx: RowContext,
  gateway: Started,
  specs: string,
  tools: number,
): Promise<RowResult> {
  const pid = gateway.child.pid!
  const file = join(specs, 'kubernetes-v1.13.json')
  const original = JSON.parse(await readFile(KUBERNETES, 'utf8')) as {
    paths: Record<string, Record<string, { description?: string }>>
  }
  const [path, operations] = Object.entries(original.paths)[0]!
  const [method, operation] = Object.entries(operations)[0]!
  const problems: string[] = []
  const runs: {
    peakMb: number
    gatewayPeakMb: number
    buildPeakMb: number
    sampledMb: number
    beforeMb: number
    afterMb: number
    durationMs: number
  }[] = []
  ctx.log(`row 6b: ${ctx.options.runs} reloads of a changed Kubernetes spec, peak RSS`)
  for (let i = 1; i <= ctx.options.runs; i++) {
    const changed = structuredClone(original)
    changed.paths[path]![method]!.description = `${operation.description ?? ''} (bench reload ${i})`
    const staged = join(ctx.tmp, `kubernetes-${i}.json`)
    await writeFile(staged, JSON.stringify(changed, null, 1))
    const seen = await lastReload(gateway.url)
    const threads = await statusField(pid, 'Threads')
    const beforeMb = (await treeMemoryOf(pid)).rssMb
    try {
      await writeFile(`/proc/${pid}/clear_refs`, '5')
    } catch (err) {
      problems.push(`cannot reset the peak (VmHWM) of pid ${pid}: ${(err as Error).message}`)
      break
    }
    let sampledMb = 0
    /** Each build process's VmHWM, as last read. */
    const buildPeaks = new Map<number, number>()
    const sampler = setInterval(() => {
      treeMemoryOf(pid).then(
        (memory) => {
          sampledMb = Math.max(sampledMb, memory.rssMb)
          for (const [child, { peakMb }] of memory.children)
            buildPeaks.set(child, Math.max(buildPeaks.get(child) ?? 0, peakMb))
        },
        () => {},
      )
    }, 10)
    try {
      await rename(staged, file)
      const record = await nextReload(gateway.url, seen, () => true)
      if (!record.swapped || record.outcome !== 'ok' || record.diff.changed.length !== 1)
        problems.push(
          `run ${i}: the reload was ${record.outcome}, swapped ${record.swapped}, ${record.diff.changed.length} tools changed (1 expected)`,
        )
      const deadline = Date.now() + WORKER_EXIT_MS
      while (
        ((await statusField(pid, 'Threads')) > threads || (await childPids(pid)).length > 0) &&
        Date.now() < deadline
      )
        await sleep(20)
      if (Date.now() >= deadline)
        problems.push(`run ${i}: the build process still ran ${WORKER_EXIT_MS / 1_000} s after the swap`)
      const memory = await memoryOf(pid)
      // A reload builds in one process; should there be more, the largest stands for them.
      const buildPeakMb = Math.max(0, ...buildPeaks.values())
      runs.push({
        peakMb: memory.peakMb + buildPeakMb,
        gatewayPeakMb: memory.peakMb,
        buildPeakMb,
        sampledMb,
        beforeMb,
        afterMb: memory.rssMb,
        durationMs: record.durationMs,
      })
    } finally {
      clearInterval(sampler)
    }
  }
  const peak = summarize(runs.map((run) => run.peakMb))
  const growth = summarize(runs.map((run) => run.peakMb / run.beforeMb))
  const median = (pick: (run: (typeof runs)[number]) => number) => summarize(runs.map(pick)).median
  if (runs.length === 0) problems.push('no reload measured')
  return {
    id: '6b',
    row: 'rss',
    figure: `gateway peak RSS during a reload of a changed Kubernetes spec (${tools.toLocaleString('en-US')} tools)`,
    metric: 'peak / RSS before',
    // Issue 44's target: the peak at most twice the RSS before the reload, each run's own.
    value: round(growth.median, 2),
    target: { op: '<=', value: 2 },
    candidate: `peak ${peak.median.toFixed(0)} MB (${median((run) => run.beforeMb).toFixed(0)} before, ${median((run) => run.afterMb).toFixed(0)} after)`,
    baseline: '—',
    ...(runs.length > 0 ? { range: rangeOf(growth) } : {}),
    problems,
    notes: [
      `gateway VmHWM (reset before each reload) ${median((run) => run.gatewayPeakMb).toFixed(0)} MB + build process VmHWM ${median((run) => run.buildPeakMb).toFixed(0)} MB (medians); VmRSS of both sampled every 10 ms peaked at ${median((run) => run.sampledMb).toFixed(0)} MB (median); reload ${median((run) => run.durationMs).toFixed(0)} ms (durationMs, median)`,
    ],
    details: { tools, runs },
  }
}
