import { Agent, request } from 'undici'

export interface LoadResponse {
  readonly path: string
  readonly status: number
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly body: string
}

export interface RunningLoad {
  /** Stops the workers and resolves with every response (or failure) they saw. */
  stop(): Promise<{ responses: LoadResponse[]; failures: string[] }>
}

/**
 * Closed-loop load: `workers` concurrent loops, each sending the requests of `next()` one after
 * the other over keep-alive connections until stopped. A request that throws (refused, reset) is a
 * failure with its message; every answer is kept with its status, headers and body.
 */
export function startLoad(
  baseUrl: string,
  next: (n: number) => { path: string; method?: 'GET' | 'POST'; body?: string },
  workers = 4,
  options: { keepAlive?: boolean } = {},
): RunningLoad {
  const dispatcher = new Agent({ connections: workers, keepAliveTimeout: 10_000 })
  const responses: LoadResponse[] = []
  const failures: string[] = []
  let running = true
  let count = 0
  const loop = async () => {
    while (running) {
      const { path, method = 'GET', body } = next(count++)
      try {
        const res = await request(`${baseUrl}${path}`, {
          method,
          dispatcher,
          headers: {
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(options.keepAlive === false ? { connection: 'close' } : {}),
          },
          ...(body === undefined ? {} : { body }),
        })
        responses.push({ path, status: res.statusCode, headers: res.headers, body: await res.body.text() })
      } catch (err) {
        failures.push(`${method} ${path}: ${(err as Error).message}`)
      }
    }
  }
  const loops = Array.from({ length: workers }, loop)
  // Idempotent, so a test can also stop it in t.after: a failed assertion must not leave the
  // loops spinning against a stopped server (they retry at once and never end the test file).
  let stopped: Promise<{ responses: LoadResponse[]; failures: string[] }> | undefined
  return {
    stop() {
      stopped ??= (async () => {
        running = false
        await Promise.all(loops)
        await dispatcher.close()
        return { responses, failures }
      })()
      return stopped
    },
  }
}
