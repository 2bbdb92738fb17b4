// Row 7 (issues 15 and 43): tool search at 5,000 tools and more — the search evaluation set's
// twelve fixtures plus copies of the largest (bench/search/row.ts) — its latency over the
// evaluation set's 240 tasks, what its index adds to the process's memory and takes to build, and
// first-turn tokens on the same catalog. No baseline: the latency and memory are the search's own,
// and the tokens are counts, each form's against the whole document's.
import type { RowContext } from '../lib/context.js'
import { benchScript } from '../lib/paths.js'
import { spawnNode } from '../lib/processes.js'
import { formatNumber, ms, type RowResult, rangeOf } from '../lib/report.js'
import { SHIPPED } from '../lib/shipped.js'
import { round, summarize } from '../lib/stats.js'

interface SearchFigures {
  readonly tools: number
  /** The evaluation set's fixtures, then the copies of the largest (each another service). */
  readonly fixtures: readonly string[]
  readonly copies: { readonly of: string; readonly as: readonly string[] }
  readonly tasks: number
  readonly queries: number
  readonly p50: number
  readonly p99: number
  /** What a second, kept index adds after full collections; its build time (median of 3). */
  readonly index: {
    readonly rssMb: number
    readonly heapMb: number
    readonly rssBeforeMb: number
    readonly heapBeforeMb: number
    readonly buildMs: number
    readonly builds: readonly number[]
  }
  readonly tokens: Record<
    'openai' | 'openai-deferred' | 'claude' | 'claude-deferred' | 'mcp' | 'mcp-search',
    number
  >
}

async function measure(ctx: RowContext): Promise<SearchFigures> {
  // The gateway's process as the image runs it (node flags, allocator), building in its build process;
  // --expose-gc only lets the child collect before each memory reading.
  const child = spawnNode(benchScript('search', 'row.js'), [], {
    cpus: ctx.cpus.server,
    nodeFlags: [...SHIPPED.nodeFlags, '--expose-gc'],
    env: SHIPPED.env,
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`the search bench exited with ${code}:\n${stderr}`)
  return JSON.parse(stdout) as SearchFigures
}

const thousands = (n: number) => n.toLocaleString('en-US')
const megabytes = (value: number) => `${formatNumber(value)} MB`

export async function searchRows(ctx: RowContext): Promise<RowResult[]> {
  ctx.log('row 7: tool search at 5,000+ tools (latency, index memory and build, first-turn tokens)')
  const runs: SearchFigures[] = []
  for (let i = 0; i < ctx.options.runs; i++) runs.push(await measure(ctx))
  const median = (pick: (f: SearchFigures) => number) => summarize(runs.map(pick)).median
  const [first] = runs as [SearchFigures]
  const { tokens } = first
  const catalog = `${thousands(first.tools)} tools (${first.fixtures.length} evaluation fixtures + ${first.copies.as.length} copies of ${first.copies.of})`
  return [
    {
      id: '7a',
      row: 'search',
      figure: `GET /tools/search?limit=5 on ${catalog}, ${first.queries} queries (${first.tasks} tasks) per run (in-process)`,
      metric: 'p99 latency',
      value: round(
        median((f) => f.p99),
        2,
      ),
      target: { op: '<=', value: 20 },
      candidate: `p50 ${ms(median((f) => f.p50))}, p99 ${ms(median((f) => f.p99))}`,
      baseline: '—',
      range: rangeOf(summarize(runs.map((f) => f.p99))),
      problems: [],
      details: { fixtures: first.fixtures, copies: first.copies, runs },
    },
    {
      id: '7b',
      row: 'search',
      figure: `first-turn tokens (o200k) on 7a's catalog: deferred /openai-deferred.json vs the whole /openai.json`,
      metric: '% of the whole',
      value: round((100 * tokens['openai-deferred']) / tokens.openai, 4),
      target: { op: '<=', value: 1 },
      candidate: `${thousands(tokens['openai-deferred'])} tokens`,
      baseline: `${thousands(tokens.openai)} tokens`,
      problems: [],
      notes: [
        `Claude: deferred ${thousands(tokens['claude-deferred'])} vs whole ${thousands(tokens.claude)} tokens`,
        `MCP: search mode's tools/list ${thousands(tokens['mcp-search'])} vs every tool ${thousands(tokens.mcp)} tokens`,
      ],
      details: { tokens },
    },
    {
      id: '7c',
      row: 'search',
      figure: `search index memory at ${thousands(first.tools)} tools: RSS a second, kept index adds after full GCs`,
      metric: 'MB RSS added',
      value: round(
        median((f) => f.index.rssMb),
        1,
      ),
      target: { op: '<=', value: 60 },
      candidate: `RSS +${megabytes(median((f) => f.index.rssMb))}, heap +${megabytes(median((f) => f.index.heapMb))}`,
      baseline: '—',
      range: rangeOf(summarize(runs.map((f) => f.index.rssMb))),
      problems: [],
      notes: [
        `index build (buildSearchIndexAsync, as the store runs it on the main thread; median of 3 a run): ${ms(median((f) => f.index.buildMs))} (runs ${runs.map((f) => ms(f.index.buildMs)).join(', ')})`,
        `before the kept index: RSS ${megabytes(median((f) => f.index.rssBeforeMb))}, heap ${megabytes(median((f) => f.index.heapBeforeMb))}`,
      ],
      details: {
        heapMb: runs.map((f) => f.index.heapMb),
        buildMs: runs.map((f) => f.index.builds),
      },
    },
  ]
}
