import type { BenchOptions } from './options.js'
import type { CpuPlan } from './processes.js'

/** What every row gets from the harness. */
export interface RowContext {
  readonly options: BenchOptions
  readonly cpus: CpuPlan
  /** A scratch directory of this bench run, removed at the end. */
  readonly tmp: string
  /** Progress lines (stderr, so the table on stdout stays clean). */
  log(line: string): void
}

/**
 * Every gateway and baseline runs as in production (gateway.md §4.6) and logs at the same level.
 * DRAIN_DELAY=0: the 5 s production drain only slows the bench's own shutdowns.
 */
export const GATEWAY_ENV = { NODE_ENV: 'production', LOG_LEVEL: 'warn', BENCH_LOG_LEVEL: 'warn' }
export const BASELINE_ENV = { NODE_ENV: 'production', BENCH_LOG_LEVEL: 'warn' }

/**
 * The access block of every bench gateway's configuration. Production without clients closes
 * tool calls and limits anonymous callers to 1,200 requests a minute per address, and the load
 * generator is one address: access is open, and the limits are so high they never refuse —
 * they are still counted on every request, as shipped.
 */
export const BENCH_ACCESS =
  'access: open\nrateLimits:\n  anonymous: { max: 100000000 }\n  clients: { max: 100000000 }\n'

export const megabytes = (bytes: number) => bytes / 1024 / 1024

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${megabytes(bytes).toFixed(1)} MB`
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(0)} KB`
  return `${bytes} B`
}
