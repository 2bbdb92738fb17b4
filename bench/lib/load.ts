import { once } from 'node:events'
import { benchScript } from './paths.js'
import { spawnNode } from './processes.js'

export interface LoadRequest {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** Closed loop (autocannon): as many requests as `connections` × `pipelining` keep in flight. */
export interface ClosedLoad {
  readonly origin: string
  /** Cycled through per connection. */
  readonly requests: readonly LoadRequest[]
  readonly connections: number
  readonly pipelining: number
  readonly duration: number
  /** Collect the distinct values of this response header. */
  readonly watchHeader?: string
}

/** Open loop (undici): requests sent at a fixed rate whether or not earlier ones have answered. */
export interface OpenLoad {
  readonly origin: string
  readonly request: LoadRequest
  readonly rate: number
  readonly duration: number
  readonly connections: number
}

export interface LoadResult {
  /** Responses per second over the run. */
  readonly rps: number
  readonly total: number
  /** Latency percentiles, ms. */
  readonly p50: number
  readonly p99: number
  readonly max: number
  readonly bytesPerSecond: number
  readonly statusCodes: Readonly<Record<string, number>>
  readonly errors: number
  readonly timeouts: number
  readonly headerValues?: readonly string[]
  /** Open loop only: how late the sender was against its schedule, ms (p99). */
  readonly senderLagP99?: number
}

/** Gaps over 1 ms in a busy loop on one CPU: the box's scheduling noise. */
export interface StallProbe {
  readonly seconds: number
  readonly stalls: number
  readonly worstMs: number
  /** Sum of the gaps: how long the CPU was taken away. */
  readonly lostMs: number
}

export function runStallProbe(seconds: number, cpus: string | undefined): Promise<StallProbe> {
  return runChild('stalls.js', [String(seconds)], cpus)
}

export function runClosed(load: ClosedLoad, cpus: string | undefined): Promise<LoadResult> {
  return runChild('closed.js', [JSON.stringify(load)], cpus)
}

export function runOpen(load: OpenLoad, cpus: string | undefined): Promise<LoadResult> {
  return runChild('open.js', [JSON.stringify(load)], cpus)
}

/** The load generator is its own process, pinned away from the server under test. */
async function runChild<T>(script: string, args: string[], cpus: string | undefined): Promise<T> {
  const child = spawnNode(benchScript('load', script), args, { cpus })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk))
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`load generator ${script} exited with ${code}:\n${stderr}`)
  return JSON.parse(stdout) as T
}

/** Why a run does not count (gateway.md §4.6: a run with errors is invalid); empty when it does. */
export function problemsOf(result: LoadResult, expectedStatus: number): string[] {
  const problems: string[] = []
  if (result.errors > 0) problems.push(`${result.errors} errors`)
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`)
  if (result.total === 0) problems.push('no responses')
  for (const [status, count] of Object.entries(result.statusCodes)) {
    if (Number(status) !== expectedStatus) problems.push(`${count} × ${status}`)
  }
  return problems
}
