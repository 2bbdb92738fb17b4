import type { FastifyBaseLogger } from 'fastify'

/** Log levels that write `info` lines. */
const INFO_OR_MORE: ReadonlySet<string> = new Set(['info', 'debug', 'trace'])

/**
 * Whether `log` writes `info` lines: a hot path's log object is built only then (at the
 * production level, warn, a tool call logs nothing). Fastify's logger type has no isLevelEnabled.
 */
export function logsInfo(log: FastifyBaseLogger): boolean {
  return INFO_OR_MORE.has(log.level)
}
