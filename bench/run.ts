// `npm run bench`: issue 9's figures, each a ratio measured against a baseline in the same run.
// Prints a table on stdout (progress on stderr) and writes bench/results.json. See bench/README.md.
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RowContext } from './lib/context.js'
import { type BenchOptions, parseOptions, ROWS, type RowName, UsageError } from './lib/options.js'
import { fromRoot } from './lib/paths.js'
import { killStarted, planCpus } from './lib/processes.js'
import { formatTable, type RowResult } from './lib/report.js'
import { SHIPPED } from './lib/shipped.js'
import { catalogBuildRows } from './rows/catalog-build.js'
import { documentRows } from './rows/documents.js'
import { explorerRows } from './rows/explorer.js'
import { identityRows } from './rows/identity.js'
import { proxyRows } from './rows/proxy.js'
import { reloadRows } from './rows/reload.js'
import { scaleRows } from './rows/scale.js'
import { searchRows } from './rows/search.js'
import { sessionRows } from './rows/sessions.js'
import { tracingRows } from './rows/tracing.js'
import { workflowRows } from './rows/workflow.js'

type RowRunner = (ctx: RowContext) => Promise<RowResult[]>

/** This run's scratch directory, removed on Ctrl-C too. */
let scratch: string | undefined

/** In the order they run: rss reads the gateway that row 1 has just loaded. */
function runners(only: ReadonlySet<RowName>): [string, RowRunner][] {
  const list: [string, RowRunner][] = []
  if (only.has('documents') || only.has('rss')) {
    list.push([
      'documents',
      (ctx) => documentRows(ctx, { compare: only.has('documents'), rss: only.has('rss') }),
    ])
  }
  if (only.has('sessions')) list.push(['sessions', sessionRows])
  if (only.has('proxy')) list.push(['proxy', proxyRows])
  if (only.has('catalog')) list.push(['catalog', catalogBuildRows])
  if (only.has('reload')) list.push(['reload', reloadRows])
  if (only.has('search')) list.push(['search', searchRows])
  if (only.has('explorer')) list.push(['explorer', explorerRows])
  if (only.has('scale')) list.push(['scale', scaleRows])
  if (only.has('tracing')) list.push(['tracing', tracingRows])
  if (only.has('identity')) list.push(['identity', identityRows])
  if (only.has('workflow')) list.push(['workflow', workflowRows])
  return list
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), process.env)
  const cpuPlan = planCpus()
  const tmp = await mkdtemp(join(tmpdir(), 'toolgate-bench-'))
  scratch = tmp
  const started = new Date()
  const log = (line: string) => process.stderr.write(`[${elapsed(started)}] ${line}\n`)
  const ctx: RowContext = { options, cpus: cpuPlan, tmp, log }
  log(`duration ${options.duration} s × ${options.runs} runs, warm-up ${options.warmup} s; ${cpuPlan.note}`)
  // Every server under test runs on this process's Node (process.execPath): the figures are the
  // image's only when that is the Node it ships.
  if (process.versions.node.split('.')[0] !== SHIPPED.nodeMajor)
    log(
      `node ${process.version}: the image ships Node ${SHIPPED.nodeMajor} (Dockerfile), whose V8 sizes memory differently`,
    )
  const rows: RowResult[] = []
  let crashed = false
  const loadBefore = loadavg()
  try {
    for (const [name, run] of runners(options.only)) {
      try {
        rows.push(...(await run(ctx)))
      } catch (err) {
        crashed = true
        log(`${name} failed: ${(err as Error).stack ?? err}`)
      }
    }
  } finally {
    killStarted()
    await rm(tmp, { recursive: true, force: true })
  }
  const table = formatTable(rows)
  process.stdout.write(`\n${table}\n`)
  const out = options.out ?? defaultOut(options)
  const fresh = await results(options, cpuPlan.note, started, loadBefore, rows, table)
  const document = options.merge ? await mergeInto(out, fresh, options.only) : fresh
  await writeFile(out, `${JSON.stringify(document, null, 2)}\n`)
  log(`${options.merge ? 'merged into' : 'wrote'} ${out}`)
  return crashed ? 1 : 0
}

/** A full run (or `--merge`) writes the committed bench/results.json; a partial one must not. */
function defaultOut(options: BenchOptions): string {
  const full = options.only.size === ROWS.length
  if (full || options.merge) return fromRoot('bench', 'results.json')
  return fromRoot('dist', 'bench', 'results.partial.json')
}

type Results = Awaited<ReturnType<typeof results>>

/**
 * `--merge`: the rows of this run replace the same rows of the full run in `file`, in place; the
 * run itself is listed under `reruns` (when, which rows, the machine), so nothing is passed off
 * as measured in the full run.
 */
async function mergeInto(file: string, fresh: Results, only: ReadonlySet<RowName>) {
  const existing = JSON.parse(await readFile(file, 'utf8')) as Results & { reruns?: unknown[] }
  const rows: RowResult[] = []
  let inserted = false
  for (const row of existing.rows) {
    if (!only.has(row.row)) rows.push(row)
    else if (!inserted) {
      rows.push(...fresh.rows)
      inserted = true
    }
  }
  if (!inserted) rows.push(...fresh.rows)
  const { rows: rerunRows, table: _table, ...rerun } = fresh
  return {
    ...existing,
    table: formatTable(rows).split('\n'),
    rows,
    reruns: [...(existing.reruns ?? []), { ...rerun, rows: rerunRows.map((row) => row.id) }],
  }
}

async function results(
  options: BenchOptions,
  pinning: string,
  started: Date,
  loadBefore: number[],
  rows: RowResult[],
  table: string,
) {
  const version = async (name: string) =>
    (
      JSON.parse(await readFile(fromRoot('node_modules', name, 'package.json'), 'utf8')) as {
        version: string
      }
    ).version
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: fromRoot(), encoding: 'utf8' })
  return {
    startedAt: started.toISOString(),
    seconds: Math.round((Date.now() - started.getTime()) / 1_000),
    commit: git.status === 0 ? git.stdout.trim() : undefined,
    machine: {
      cpu: cpus()[0]?.model,
      cpus: cpus().length,
      node: process.version,
      gateway: { nodeFlags: SHIPPED.nodeFlags, env: SHIPPED.env },
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
      pinning,
    },
    versions: Object.fromEntries(
      await Promise.all(
        ['fastify', 'undici', 'autocannon', '@fastify/reply-from', '@samchon/openapi', 'ioredis'].map(
          async (name) => [name, await version(name)],
        ),
      ),
    ),
    options: { ...options, only: [...options.only] },
    table: table.split('\n'),
    rows,
  }
}

function elapsed(since: Date): string {
  const seconds = Math.round((Date.now() - since.getTime()) / 1_000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killStarted()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
    process.exit(130)
  })
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    killStarted()
    process.stderr.write(
      `bench: ${err instanceof UsageError ? err.message : ((err as Error).stack ?? err)}\n`,
    )
    process.exitCode = 2
  },
)
