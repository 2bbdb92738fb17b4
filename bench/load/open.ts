// Open-loop load generator, run as its own (pinned) process: request i leaves at start + i/rate
// whether or not earlier ones have answered (undici Pool, so a slow server meets queued requests,
// not a politely waiting client). Latency runs from the request() call to the last body byte.
//
// Not autocannon's -R/--overallRate: its rate limit lets each connection send its quota
// back-to-back at the start of every second and then idle (lib/httpClient.js, a per-second
// counter), and its coordinated-omission correction uses an expected interval of
// ceil(1 / rate) = 1 ms (lib/run.js), so it measures bursts, not a fixed rate.
import { setTimeout as sleep } from 'node:timers/promises'
import { Pool } from 'undici'
import type { LoadResult, OpenLoad } from '../lib/load.js'

/**
 * Unmeasured lead-in at the same rate: the first ~50 requests of a fresh process wait for its JIT
 * and new connections (10–25 ms here), which alone would set the p99 of a 4,000-request run.
 */
const LEAD_IN_SECONDS = 0.5

interface Schedule {
  readonly latencies: Float64Array
  readonly lags: Float64Array
  readonly statusCodes: Record<string, number>
  readonly errors: number
  readonly bytes: number
  readonly seconds: number
}

const spec = JSON.parse(process.argv[2] ?? '{}') as OpenLoad
const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1 })

async function runSchedule(seconds: number): Promise<Schedule> {
  const total = Math.round(spec.rate * seconds)
  const interval = 1_000 / spec.rate // ms
  const latencies = new Float64Array(total).fill(Number.NaN)
  const lags = new Float64Array(total)
  const statusCodes: Record<string, number> = {}
  let errors = 0
  let bytes = 0
  const send = async (index: number) => {
    const started = performance.now()
    try {
      const response = await pool.request({
        method: spec.request.method,
        path: spec.request.path,
        headers: { ...spec.request.headers },
        ...(spec.request.body !== undefined ? { body: spec.request.body } : {}),
      })
      bytes += (await response.body.arrayBuffer()).byteLength
      latencies[index] = performance.now() - started
      statusCodes[response.statusCode] = (statusCodes[response.statusCode] ?? 0) + 1
    } catch {
      errors++
    }
  }
  const inFlight: Promise<void>[] = []
  const start = performance.now()
  let next = 0
  while (next < total) {
    const now = performance.now()
    while (next < total && start + next * interval <= now) {
      lags[next] = now - (start + next * interval)
      inFlight.push(send(next))
      next++
    }
    await sleep(Math.max(0, start + next * interval - performance.now()))
  }
  await Promise.all(inFlight)
  return { latencies, lags, statusCodes, errors, bytes, seconds: (performance.now() - start) / 1_000 }
}

function percentile(values: Float64Array, q: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort()
  return sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
}

await runSchedule(LEAD_IN_SECONDS)
const run = await runSchedule(spec.duration)
await pool.close()
const answered = run.latencies.filter((v) => !Number.isNaN(v)).length
const output: LoadResult = {
  rps: answered / run.seconds,
  total: answered,
  p50: percentile(run.latencies, 0.5),
  p99: percentile(run.latencies, 0.99),
  max: percentile(run.latencies, 1),
  bytesPerSecond: run.bytes / run.seconds,
  statusCodes: run.statusCodes,
  errors: run.errors,
  timeouts: 0,
  senderLagP99: percentile(run.lags, 0.99),
}
process.stdout.write(JSON.stringify(output))
