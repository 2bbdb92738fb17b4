/** How a bench server tells the harness where it listens: one JSON line on stdout. */
export function announce(url: string): void {
  process.stdout.write(`${JSON.stringify({ url })}\n`)
}

/** The gateway's logger level, so baselines log exactly as much (gateway.md §4.6). */
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'warn'

/** The gateway's keep-alive (its responses say `Keep-Alive: timeout=72`). */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000 // 72 s
