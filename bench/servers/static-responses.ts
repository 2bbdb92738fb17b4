// The bare baseline of rows 1 and 2: one Fastify route per path that sends bytes fetched from the
// gateway beforehand — identical body, brotli body, ETag and headers — with no hooks, plugins,
// catalog or session lookup. MCP answers (rows 1j, 1k) are POST routes: Fastify parses the JSON-RPC
// body as it parses any JSON, and the answer is told apart by the Mcp-Method header the client
// sends. argv[2] is a JSON file of StaticRoute.
import { readFileSync } from 'node:fs'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { announce, KEEP_ALIVE_TIMEOUT_MS, LOG_LEVEL } from './listening.js'

export interface StaticRoute {
  /** A Fastify route path (`/api/sessions/:code/metadata` stays parametric, as the gateway's). */
  readonly route: string
  /** GET unless said. */
  readonly method?: 'GET' | 'POST'
  /** Answer only requests whose `header` is `value` (several answers on one route: MCP methods). */
  readonly match?: { readonly header: string; readonly value: string }
  /** Headers of the gateway's 200 answer, except the per-response ones (date, length, encoding). */
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string
  readonly etag: string
  readonly bodyFile: string
  readonly brotliFile?: string
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => FastifyReply

function handlerOf(route: StaticRoute): Handler {
  const body = readFileSync(route.bodyFile)
  const brotli = route.brotliFile ? readFileSync(route.brotliFile) : undefined
  return (request, reply) => {
    reply.headers(route.headers)
    if (route.etag !== '' && request.headers['if-none-match'] === route.etag) return reply.code(304).send()
    reply.type(route.contentType)
    if (brotli && request.headers['accept-encoding']?.includes('br')) {
      return reply.header('content-encoding', 'br').send(brotli)
    }
    return reply.send(body)
  }
}

const routes = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as StaticRoute[]
const app = Fastify({ logger: { level: LOG_LEVEL }, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS })
const byRoute = new Map<string, StaticRoute[]>()
for (const route of routes) {
  const key = `${route.method ?? 'GET'} ${route.route}`
  byRoute.set(key, [...(byRoute.get(key) ?? []), route])
}
for (const group of byRoute.values()) {
  const { method = 'GET', route: url } = group[0]!
  const matched = group.filter((route) => route.match)
  let handler: Handler
  if (matched.length === 0) handler = handlerOf(group[0]!)
  else {
    const header = matched[0]!.match!.header
    const answers = new Map(matched.map((route) => [route.match!.value, handlerOf(route)]))
    handler = (request, reply) => {
      const answer = answers.get(String(request.headers[header]))
      return answer ? answer(request, reply) : reply.code(404).send()
    }
  }
  app.route({ method, url, handler })
}
announce(await app.listen({ port: 0, host: '127.0.0.1' }))
