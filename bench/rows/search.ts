// Row 7 (issue 15): tool search latency and first-turn tokens on Kubernetes 1.13 + Stripe +
// Twilio (1,651 tools). No baseline: the latency is the route's own (in-process, over the 75
// relevance tasks), and the tokens are counts, each form's against the whole document's.
import type { RowContext } from '../lib/context.js'
import { benchScript } from '../lib/paths.js'
import { spawnNode } from '../lib/processes.js'
import { ms, type RowResult, rangeOf } from '../lib/report.js'
import { SHIPPED } from '../lib/shipped.js'
import { round, summarize } from '../lib/stats.js'

interface SearchFigures {
  readonly tools: number
  readonly queries: number
  readonly p50: number
  readonly p99: number
  readonly tokens: Record<
    'openai' | 'openai-deferred' | 'claude' | 'claude-deferred' | 'mcp' | 'mcp-search',
    number
  >
}

async function measure(ctx: RowContext): Promise<SearchFigures> {
  // The gateway's process as the image runs it (node flags, allocator), building in its worker.
  const child = spawnNode(benchScript('search', 'row.js'), [], {
    cpus: ctx.cpus.server,
    nodeFlags: SHIPPED.nodeFlags,
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

export async function searchRows(ctx: RowContext): Promise<RowResult[]> {
  ctx.log('row 7: tool search on Kubernetes + Stripe + Twilio (latency, first-turn tokens)')
  const runs: SearchFigures[] = []
  for (let i = 0; i < ctx.options.runs; i++) runs.push(await measure(ctx))
  const median = (pick: (f: SearchFigures) => number) => summarize(runs.map(pick)).median
  const [first] = runs as [SearchFigures]
  const { tokens } = first
  return [
    {
      id: '7a',
      row: 'search',
      figure: `GET /tools/search?limit=5 on ${thousands(first.tools)} tools, ${first.queries} queries per run (in-process)`,
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
      details: { runs },
    },
    {
      id: '7b',
      row: 'search',
      figure: 'first-turn tokens (o200k): deferred /openai-deferred.json vs the whole /openai.json',
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
  ]
}
