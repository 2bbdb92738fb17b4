import type { PairResult } from './compare.js'
import type { RowName } from './options.js'
import { round } from './stats.js'

export interface Target {
  readonly op: '>=' | '<=' | '=='
  readonly value: number
}

/** One line of the table and of results.json. */
export interface RowResult {
  /** `1a`, `3b` …: the row number and the figure within it. */
  readonly id: string
  readonly row: RowName
  readonly figure: string
  /** What `value` is, e.g. `req/s ratio`, `ms added (p99)`. */
  readonly metric: string
  readonly value: number
  readonly target: Target
  /** Toolgate's and the baseline's own figures, formatted for the table. */
  readonly candidate: string
  readonly baseline: string
  /** min–max of `value` over the runs (of the per-pair ratios for a ratio). */
  readonly range?: { readonly min: number; readonly max: number }
  /** Why the figure does not count (errors, unexpected statuses); empty when valid. */
  readonly problems: readonly string[]
  readonly notes?: readonly string[]
  /** Raw medians and per-run figures. */
  readonly details?: unknown
}

export function meets(target: Target, value: number): boolean {
  if (target.op === '>=') return value >= target.value
  if (target.op === '<=') return value <= target.value
  return value === target.value
}

/**
 * The median decides; when the runs' range lies on both sides of the target, the verdict says
 * so, since on a noisy box one more run could flip it.
 */
export function verdict(row: RowResult): string {
  if (row.problems.length > 0) return 'INVALID'
  const met = meets(row.target, row.value)
  const split =
    row.range !== undefined && meets(row.target, row.range.min) !== meets(row.target, row.range.max)
  if (!split) return met ? 'met' : 'MISSED'
  return met ? 'met (some runs miss)' : 'MISSED (some runs meet)'
}

const COLUMNS = ['#', 'figure', 'toolgate', 'baseline', 'result', 'spread', 'target', 'verdict'] as const

/** A plain-text table: one line per figure, then each invalid figure's reasons. */
export function formatTable(rows: readonly RowResult[]): string {
  const cells = rows.map((row) => [
    row.id,
    row.figure,
    row.candidate,
    row.baseline,
    `${formatNumber(row.value)} ${row.metric}`,
    row.range ? spreadOf(row.range.min, row.range.max) : '',
    `${row.target.op} ${row.target.value}`,
    verdict(row),
  ])
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...cells.map((line) => line[i]!.length)))
  const line = (values: readonly string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join(' | ')
      .trimEnd()
  const out = [line(COLUMNS), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)]
  for (const row of rows) {
    if (row.problems.length > 0) out.push(`${row.id} invalid: ${row.problems.slice(0, 5).join('; ')}`)
    for (const note of row.notes ?? []) out.push(`${row.id}: ${note}`)
  }
  return out.join('\n')
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value)
  if (Math.abs(value) >= 100) return value.toFixed(0)
  if (Math.abs(value) >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

export const rps = (value: number) => `${formatNumber(value)} req/s`
export const ms = (value: number) => `${formatNumber(value)} ms`
export const spreadOf = (min: number, max: number) => `${formatNumber(min)}–${formatNumber(max)}`

/** The range of a figure over its runs, as results.json keeps it. */
export const rangeOf = (summary: { min: number; max: number }) => ({
  min: Number(summary.min.toFixed(3)),
  max: Number(summary.max.toFixed(3)),
})

/**
 * A throughput figure's row: the median of the per-pair req/s ratios, each side's median req/s,
 * the ratios' spread, and the pair's problems after the row's own (its correctness checks).
 */
export function ratioRow(
  pair: PairResult,
  row: Pick<RowResult, 'id' | 'row' | 'figure' | 'metric' | 'target' | 'problems' | 'details'>,
): RowResult {
  return {
    id: row.id,
    row: row.row,
    figure: row.figure,
    metric: row.metric,
    value: round(pair.ratio.median, 3),
    target: row.target,
    candidate: rps(pair.candidate.rps.median),
    baseline: rps(pair.baseline.rps.median),
    range: rangeOf(pair.ratio),
    problems: [...row.problems, ...pair.problems],
    details: row.details,
  }
}
