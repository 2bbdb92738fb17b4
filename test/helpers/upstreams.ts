import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/** What an upstream received, byte for byte. */
export interface Received {
  readonly method: string
  /** Path and query exactly as sent (still percent-encoded). */
  readonly target: string
  readonly headers: IncomingMessage['headers']
  readonly body: Buffer
}

export type Responder = (received: Received, res: ServerResponse) => void | Promise<void>

export interface TestUpstream {
  readonly url: string
  readonly received: Received[]
  close(): Promise<void>
}

const ok: Responder = (_received, res) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end('{"ok":true}')
}

/** A real HTTP server on 127.0.0.1 that records every request; closed after the test. */
export async function startUpstream(
  t: { after(fn: () => Promise<unknown>): void },
  respond: Responder = ok,
): Promise<TestUpstream> {
  const received: Received[] = []
  const sockets = new Set<Socket>()
  // Generated arguments can make long query strings (Stripe's list filters): allow 1 MiB of head.
  const server: Server = createServer({ maxHeaderSize: 1024 * 1024 }, async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const entry = {
      method: req.method ?? '',
      target: req.url ?? '',
      headers: headersOf(req),
      body: Buffer.concat(chunks),
    }
    received.push(entry)
    await respond(entry, res)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  t.after(close)
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close }
}

/**
 * The request's headers as Node parses them, plus any name Node's parser leaves out of that
 * object (a `__proto__` header is sent but is never an own key of `req.headers`).
 */
function headersOf(req: IncomingMessage): IncomingMessage['headers'] {
  const headers: IncomingMessage['headers'] = Object.assign(Object.create(null), req.headers)
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!.toLowerCase()
    if (!Object.hasOwn(headers, name)) headers[name] = req.rawHeaders[i + 1]!
  }
  return headers
}

/** A port nothing listens on: bound, then closed. */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
