// The bare baseline of rows 1 and 2: one Fastify route per path that sends bytes fetched from the
// gateway beforehand — identical body, brotli body, ETag and headers — with no hooks, plugins,
// catalog or session lookup. argv[2] is a JSON file of StaticRoute.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'
import { announce, KEEP_ALIVE_TIMEOUT_MS, LOG_LEVEL } from './listening.js'

export interface StaticRoute {
  /** A Fastify route path (`/api/sessions/:code/metadata` stays parametric, as the gateway's). */
  readonly route: string
  /** Headers of the gateway's 200 answer, except the per-response ones (date, length, encoding). */
  readonly headers: Readonly<Record<string, string>>
  readonly contentType: string
  readonly etag: string
  readonly bodyFile: string
  readonly brotliFile?: string
}

const routes = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as StaticRoute[]
const app = Fastify({ logger: { level: LOG_LEVEL }, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS })
for (const route of routes) {
  const body = readFileSync(route.bodyFile)
  const brotli = route.brotliFile ? readFileSync(route.brotliFile) : undefined
  app.get(route.route, (request, reply) => {
    reply.headers(route.headers)
    if (request.headers['if-none-match'] === route.etag) return reply.code(304).send()
    reply.type(route.contentType)
    if (brotli && request.headers['accept-encoding']?.includes('br')) {
      return reply.header('content-encoding', 'br').send(brotli)
    }
    return reply.send(body)
  })
}
announce(await app.listen({ port: 0, host: '127.0.0.1' }))
