// Closed-loop load generator, run as its own (pinned) process: autocannon with the spec given as
// JSON in argv[2]; prints a LoadResult as JSON.
import autocannon from 'autocannon'
import type { ClosedLoad, LoadResult } from '../lib/load.js'

const spec = JSON.parse(process.argv[2] ?? '{}') as ClosedLoad
const seen = new Set<string>()
const watch = spec.watchHeader?.toLowerCase()

const result = await autocannon({
  url: spec.origin,
  connections: spec.connections,
  pipelining: spec.pipelining,
  duration: spec.duration,
  timeout: 10,
  requests: spec.requests.map((request) => ({
    method: request.method,
    path: request.path,
    ...(request.headers ? { headers: { ...request.headers } } : {}),
    ...(request.body !== undefined ? { body: request.body } : {}),
    // A response callback makes autocannon keep bodies, so it is set only when a header is watched.
    ...(watch
      ? {
          onResponse: (
            _status: number,
            _body: string,
            _context: unknown,
            headers: Record<string, string>,
          ) => {
            const value = headers[watch]
            if (value !== undefined) seen.add(value)
          },
        }
      : {}),
  })),
})

const output: LoadResult = {
  rps: result.requests.total / result.duration,
  total: result.requests.total,
  p50: result.latency.p50,
  p99: result.latency.p99,
  max: result.latency.max,
  bytesPerSecond: result.throughput.average,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  errors: result.errors,
  timeouts: result.timeouts,
  ...(watch ? { headerValues: [...seen] } : {}),
}
process.stdout.write(JSON.stringify(output))
