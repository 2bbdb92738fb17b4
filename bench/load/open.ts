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

const spec = JSON.parse(process.argv[2] ?? '{}') as OpenLoad
const pool = new Pool(spec.origin, { connections: spec.connections, pipelining: 1 })
const total = Math.round(spec.rate * spec.duration)
const interval = 1_000 / spec.rate // ms
const latencies = new Float64Array(total).fill(Number.NaN)
const lags = new Float64Array(total)
const statusCodes: Record<string, number> = {}
let errors = 0
let bytes = 0

async function send(index: number): Promise<void> {
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
const start = performance.now() + 20
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
const elapsed = (performance.now() - start) / 1_000
await pool.close()

const percentile = (values: Float64Array, q: number) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort()
  return sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
}
const answered = latencies.filter((v) => !Number.isNaN(v)).length
const output: LoadResult = {
  rps: answered / elapsed,
  total: answered,
  p50: percentile(latencies, 0.5),
  p99: percentile(latencies, 0.99),
  max: percentile(latencies, 1),
  bytesPerSecond: bytes / elapsed,
  statusCodes,
  errors,
  timeouts: 0,
  senderLagP99: percentile(lags, 0.99),
}
process.stdout.write(JSON.stringify(output))
