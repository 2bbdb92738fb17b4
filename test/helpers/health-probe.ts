import { readFile } from 'node:fs/promises'
import { Agent, request } from 'undici'

export interface HealthSample {
  /** performance.now() when the request was due (open loop: not when the previous one came back). */
  readonly at: number
  readonly ms: number
  readonly status?: number
  readonly error?: string
}

export interface LatencyFigures {
  readonly count: number
  readonly errors: readonly string[]
  readonly p50: number
  readonly p99: number
  readonly max: number
}

/**
 * Open-loop liveness probe: a `GET /health` every `intervalMs` whatever the previous one is doing,
 * each timed from when it was due. A stalled event loop shows as every request of the stall
 * waiting, not as one slow sample (no coordinated omission).
 */
export function probeHealth(baseUrl: string, intervalMs = 10) {
  const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 10_000 })
  const samples: HealthSample[] = []
  const pending = new Set<Promise<void>>()
  const send = () => {
    const at = performance.now()
    const done = request(`${baseUrl}/health`, { dispatcher, headersTimeout: 120_000, bodyTimeout: 120_000 })
      .then(async (res) => {
        await res.body.text()
        samples.push({ at, ms: performance.now() - at, status: res.statusCode })
      })
      .catch((err: Error) => {
        samples.push({ at, ms: performance.now() - at, error: err.message })
      })
      .finally(() => pending.delete(done))
    pending.add(done)
  }
  const timer = setInterval(send, intervalMs)
  return {
    async stop(): Promise<HealthSample[]> {
      clearInterval(timer)
      await Promise.all(pending)
      await dispatcher.close()
      return samples.sort((a, b) => a.at - b.at)
    },
  }
}

/** Latency figures of the samples due between `from` and `to` (performance.now() times). */
export function figuresOf(samples: readonly HealthSample[], from = 0, to = Infinity): LatencyFigures {
  const inside = samples.filter((sample) => sample.at >= from && sample.at <= to)
  const errors = inside
    .filter((sample) => sample.error !== undefined || sample.status !== 200)
    .map((sample) => sample.error ?? `status ${sample.status}`)
  const sorted = inside.map((sample) => sample.ms).sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0
  return {
    count: inside.length,
    errors,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(sorted.at(-1) ?? 0),
  }
}

/** The highest VmRSS of a process seen every `intervalMs`, and its VmHWM (peak) at the end, in MB. */
export function sampleRss(pid: number, intervalMs = 100) {
  let peak = 0
  const read = (field: 'VmRSS' | 'VmHWM') => rssMb(pid, field)
  const timer = setInterval(async () => {
    peak = Math.max(peak, await read('VmRSS'))
  }, intervalMs)
  return {
    now: () => read('VmRSS'),
    async stop() {
      clearInterval(timer)
      return { peakRssMb: peak, hwmMb: await read('VmHWM') }
    },
  }
}

/** A process's VmRSS (or VmHWM, its peak) in MB; 0 when not on Linux or the process is gone. */
export async function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    return Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024)
  } catch {
    return 0
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10
