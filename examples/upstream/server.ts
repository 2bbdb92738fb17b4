// The example upstream behind specs/tickets.yaml (/tickets/...) and specs/billing.json
// (/billing/...): one node:http server, in-memory data, no dependencies. toolgate's `npm start`
// and its tests start it in-process with startExampleUpstream(); `node dist/examples/upstream/server.js`
// runs it alone on UPSTREAM_PORT (default 4010), the port the shipped specs name.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { createBillingService } from './billing.js'
import { parseForm, parseMultipart } from './body-parsers.js'
import {
  errorReply,
  HttpError,
  json,
  mediaType,
  parseCookies,
  type Reply,
  readBody,
  sendReply,
} from './http-utils.js'
import type { ServiceHandler } from './router.js'
import { createTicketsService } from './tickets.js'

export interface ExampleUpstreamOptions {
  /** 0 (the default) picks a free port. */
  port?: number
  host?: string
  /** X-Api-Key for tickets and `api_key` query value for billing. */
  apiKey?: string
  /** Bearer token for the tickets operations secured with bearerAuth. */
  bearerToken?: string
  /** HTTP basic credentials for billing. */
  basicUser?: string
  basicPassword?: string
}

export interface ExampleUpstream {
  url: string
  port: number
  close(): Promise<void>
}

export const EXAMPLE_UPSTREAM_DEFAULTS = {
  apiKey: 'demo-key',
  bearerToken: 'demo-token',
  basicUser: 'demo',
  basicPassword: 'demo',
} as const

export async function startExampleUpstream(opts: ExampleUpstreamOptions = {}): Promise<ExampleUpstream> {
  const { port = 0, host = '127.0.0.1' } = opts
  const { apiKey, bearerToken, basicUser, basicPassword } = {
    ...EXAMPLE_UPSTREAM_DEFAULTS,
    ...definedOnly(opts),
  }
  const services: ServiceHandler[] = [
    createTicketsService({ apiKey, bearerToken }),
    createBillingService({ user: basicUser, password: basicPassword, apiKey }),
  ]
  const server = createServer((req, res) => {
    void handle(services, req, res)
  })
  // Short keep-alive: an example should not hold a test runner open for long after close().
  server.keepAliveTimeout = 5_000 // 5 s
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    close: async () =>
      await new Promise<void>((resolve, reject) => {
        server.close((err) => {
          if (err === undefined) resolve()
          else reject(err)
        })
        server.closeAllConnections()
      }),
  }
}

/** `{ apiKey: undefined }` must not override a default when spread. */
function definedOnly<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>
}

async function handle(services: ServiceHandler[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  let reply: Reply
  try {
    reply = await route(services, req)
  } catch (err) {
    reply = err instanceof HttpError ? errorReply(err) : internalError(err)
  }
  if (res.headersSent) return
  sendReply(res, reply)
}

async function route(services: ServiceHandler[], req: IncomingMessage): Promise<Reply> {
  const url = new URL(req.url ?? '/', 'http://upstream.invalid')
  if (url.pathname === '/health') return json(200, { status: 'ok' })
  if (url.pathname === '/')
    return json(200, { services: { tickets: '/tickets', billing: '/billing' }, echo: '/echo/*' })
  if (url.pathname === '/echo' || url.pathname.startsWith('/echo/')) return await echo(req, url)
  for (const service of services) {
    const reply = await service(req, url)
    if (reply !== undefined) return reply
  }
  throw new HttpError(404, 'not_found', `no route for ${req.method ?? '?'} ${url.pathname}`)
}

function internalError(err: unknown): Reply {
  // Never a stack trace to the client; the operator sees it on stderr.
  console.error('example upstream: unhandled error', err)
  return errorReply(new HttpError(500, 'internal', 'the example upstream failed; see its log'))
}

/**
 * Diagnostic route outside both specs: answers with exactly what arrived (method, path, query,
 * headers, cookies, parsed body), so serialization tests can point a spec's server at /echo.
 */
async function echo(req: IncomingMessage, url: URL): Promise<Reply> {
  const raw = await readBody(req)
  const type = mediaType(req)
  const headers = { ...req.headers }
  if (headers.authorization !== undefined) headers.authorization = '[present]'
  return json(200, {
    method: req.method,
    path: url.pathname,
    rawQuery: url.search,
    query: Object.fromEntries(
      [...new Set(url.searchParams.keys())].map((k) => [k, url.searchParams.getAll(k)]),
    ),
    headers,
    cookies: parseCookies(req.headers.cookie),
    contentType: type === '' ? null : type,
    body: describeBody(raw, type, req.headers['content-type'] ?? ''),
  })
}

function describeBody(raw: Buffer, type: string, contentType: string): unknown {
  if (raw.length === 0) return null
  if (type === 'application/x-www-form-urlencoded') return { form: parseForm(raw.toString('utf8')) }
  if (type === 'multipart/form-data') {
    const { fields, files } = parseMultipart(raw, contentType)
    return { fields, files: files.map(({ data, ...meta }) => ({ ...meta, base64: data.toString('base64') })) }
  }
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      return { json: JSON.parse(raw.toString('utf8')) as unknown }
    } catch {
      return { invalidJson: raw.toString('utf8') }
    }
  }
  return { base64: raw.toString('base64'), size: raw.length }
}

function isMain(): boolean {
  const entry = process.argv[1]
  return entry !== undefined && import.meta.url === pathToFileURL(entry).href
}

async function main(): Promise<void> {
  const port = Number(process.env.UPSTREAM_PORT ?? 4010)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(
      `UPSTREAM_PORT must be a port number from 0 to 65535, got "${process.env.UPSTREAM_PORT ?? ''}"`,
    )
    process.exit(1)
  }
  const upstream = await startExampleUpstream({ port, host: process.env.UPSTREAM_HOST ?? '127.0.0.1' })
  console.log(
    `example upstream listening on ${upstream.url} (tickets: ${upstream.url}/tickets, billing: ${upstream.url}/billing)`,
  )
  const stop = (): void => {
    void upstream.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (isMain()) {
  main().catch((err: unknown) => {
    console.error(`example upstream failed to start: ${err instanceof Error ? err.message : String(err)}`)
    process.exit(1)
  })
}
