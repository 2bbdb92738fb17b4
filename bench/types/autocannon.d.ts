// autocannon 8 ships no types; only what bench/load/closed.ts uses.
declare module 'autocannon' {
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string>) => void
  }
  interface Options {
    url: string
    connections?: number
    pipelining?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Request[]
    timeout?: number
  }
  interface Histogram {
    average: number
    p50: number
    p99: number
    max: number
  }
  interface Result {
    requests: Histogram & { total: number; sent: number }
    latency: Histogram
    throughput: Histogram & { total: number }
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    duration: number
    statusCodeStats: Record<string, { count: number }>
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
