import { parseArgs } from 'node:util'

export const ROWS = [
  'documents',
  'sessions',
  'proxy',
  'catalog',
  'reload',
  'rss',
  'search',
  'explorer',
  'scale',
  'tracing',
  'identity',
  'workflow',
] as const
export type RowName = (typeof ROWS)[number]

export interface BenchOptions {
  /** Seconds of one measured load run. */
  readonly duration: number
  /** Measured runs per figure (candidate and baseline each); medians are reported. */
  readonly runs: number
  /** Seconds of the warm-up run before each figure's measured runs. */
  readonly warmup: number
  /** Requests per second of the open-loop latency runs. */
  readonly rate: number
  readonly only: ReadonlySet<RowName>
  /** Where results.json goes (`--out`); the committed bench/results.json by default. */
  readonly out: string | undefined
  /** `--merge`: put the rows of an `--only` run into bench/results.json, recorded as a rerun. */
  readonly merge: boolean
}

const DEFAULTS = {
  duration: 4, // s; fastify/benchmarks measure 40 s, the brief asks for ≤ ~10 min in all
  runs: 3,
  warmup: 2, // s
  rate: 1_000, // req/s, gateway.md §4.7's open-loop rate
}

export class UsageError extends Error {}

/** `--only documents,proxy` (or the row numbers 1–12), BENCH_DURATION, BENCH_RUNS, BENCH_WARMUP, BENCH_RATE. */
export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      only: { type: 'string', multiple: true },
      out: { type: 'string' },
      merge: { type: 'boolean', default: false },
    },
  })
  if (values.merge && !values.only) throw new UsageError('--merge takes the rows of an --only run')
  return {
    duration: positive(env.BENCH_DURATION, 'BENCH_DURATION', DEFAULTS.duration),
    runs: Math.round(positive(env.BENCH_RUNS, 'BENCH_RUNS', DEFAULTS.runs)),
    warmup: positive(env.BENCH_WARMUP, 'BENCH_WARMUP', DEFAULTS.warmup),
    rate: Math.round(positive(env.BENCH_RATE, 'BENCH_RATE', DEFAULTS.rate)),
    only: parseOnly(values.only ?? []),
    out: values.out,
    merge: values.merge ?? false,
  }
}

function positive(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`${name} must be a positive number, got "${raw}"`)
  return value
}

function parseOnly(flags: readonly string[]): ReadonlySet<RowName> {
  const names = flags.flatMap((flag) => flag.split(',')).map((name) => name.trim())
  if (names.length === 0) return new Set(ROWS)
  return new Set(names.map(rowName))
}

function rowName(name: string): RowName {
  const byNumber = /^([1-9]|1[0-2])$/.test(name) ? ROWS[Number(name) - 1] : undefined
  const row = byNumber ?? ROWS.find((candidate) => candidate === name)
  if (!row) throw new UsageError(`--only takes ${ROWS.join(', ')} or 1–12, got "${name}"`)
  return row
}
