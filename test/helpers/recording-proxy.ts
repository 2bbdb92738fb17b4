import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request as the proxy passed it on. */
export interface Forwarded {
  readonly method: string
  readonly target: string
  readonly body: string
}

/** Headers of one connection, not of the request: not forwarded. */
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'])

/**
 * A real HTTP server on 127.0.0.1 that records each request and forwards it to `upstream` (the
 * example upstream): the test sees what the upstream saw, in order. Closed after the test.
 */
export async function startRecordingProxy(t: { after(fn: () => Promise<unknown>): void }, upstream: string) {
  const seen: Forwarded[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    seen.push({ method: req.method ?? '', target: req.url ?? '', body: body.toString('utf8') })
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !HOP.has(name)) headers.set(name, value)
    try {
      const answer = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      })
      const bytes = Buffer.from(await answer.arrayBuffer())
      const passed: Record<string, string> = {}
      for (const name of ['content-type', 'location', 'retry-after'])
        if (answer.headers.has(name)) passed[name] = answer.headers.get(name)!
      res.writeHead(answer.status, passed)
      res.end(bytes)
    } catch (err) {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`the recording proxy could not reach the upstream: ${(err as Error).cause ?? err}`)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}
