import { type LoadRequest, type LoadResult, problemsOf, runClosed } from './load.js'
import type { BenchOptions } from './options.js'
import { type Summary, summarize } from './stats.js'

/** A server taking load: its label and origin. */
export interface Target {
  readonly label: string
  readonly origin: string
  /** What this side is sent, when the two sides ask for the same thing differently (row 3d). */
  readonly requests?: readonly LoadRequest[]
}

/** One closed-loop figure: what to send, how hard, and the status every answer must have. */
export interface Figure {
  readonly requests: readonly LoadRequest[]
  readonly connections: number
  readonly pipelining: number
  readonly expectedStatus: number
}

export interface SideResult {
  readonly rps: Summary
  readonly p99: Summary
  readonly runs: readonly LoadResult[]
}

export interface PairResult {
  readonly candidate: SideResult
  readonly baseline: SideResult
  /** candidate req/s ÷ baseline req/s, per interleaved pair of runs. */
  readonly ratio: Summary
  /** Why runs did not count; empty when every run was clean. */
  readonly problems: readonly string[]
}

/**
 * gateway.md §4.6: a warm-up run each, then `runs` measured pairs, alternating which side goes
 * first (ABBA), so drift on a shared box hits both sides alike. A run with errors or an unexpected
 * status makes the figure invalid; it is reported, not dropped silently.
 */
export async function comparePair(
  candidate: Target,
  baseline: Target,
  figure: Figure,
  options: BenchOptions,
  clientCpus: string | undefined,
): Promise<PairResult> {
  const problems: string[] = []
  const run = async (target: Target, duration: number) => {
    const result = await runClosed(
      {
        origin: target.origin,
        requests: target.requests ?? figure.requests,
        connections: figure.connections,
        pipelining: figure.pipelining,
        duration,
      },
      clientCpus,
    )
    for (const problem of problemsOf(result, figure.expectedStatus))
      problems.push(`${target.label}: ${problem}`)
    return result
  }
  await run(candidate, options.warmup)
  await run(baseline, options.warmup)
  const ours: LoadResult[] = []
  const theirs: LoadResult[] = []
  for (let i = 0; i < options.runs; i++) {
    if (i % 2 === 0) {
      ours.push(await run(candidate, options.duration))
      theirs.push(await run(baseline, options.duration))
    } else {
      theirs.push(await run(baseline, options.duration))
      ours.push(await run(candidate, options.duration))
    }
  }
  return {
    candidate: side(ours),
    baseline: side(theirs),
    ratio: summarize(ours.map((result, i) => result.rps / theirs[i]!.rps)),
    problems,
  }
}

export function side(runs: readonly LoadResult[]): SideResult {
  return { rps: summarize(runs.map((r) => r.rps)), p99: summarize(runs.map((r) => r.p99)), runs }
}
