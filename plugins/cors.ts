import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Headers a browser-based agent or debugger may read (seed 001's and MCP's included). */
export const EXPOSED_HEADERS = [
  'API-Version',
  'Catalog-Version',
  'X-Request-Id',
  'ETag',
  'Tool-Manifest-Version',
  'Supported-Versions',
  'Mcp-Session-Id',
  'Retry-After',
]

const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']
const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'Accept-Version',
  'If-None-Match',
  'X-Request-Id',
  'X-Toolgate-Approval',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  // 2026-07-28's routing headers: a browser client's preflight fails without them.
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
]
const PREFLIGHT_MAX_AGE = '600' // 10 min

/**
 * CORS `*` everywhere (seed 000: discovery is fetched cross-origin, the Opal debugger calls tools
 * from the browser), preflights answered before any other hook (access control included: a
 * browser's preflight carries no Authorization). The answers are @fastify/cors's for these options
 * (origin `*`, strict preflight, 204); its per-request merge of route options cost 1.7 % of a 304
 * (issue 20), here every value is a string built once.
 */
async function corsPlugin(fastify: FastifyInstance) {
  const exposed = EXPOSED_HEADERS.join(', ')
  const methods = ALLOWED_METHODS.join(', ')
  const allowed = ALLOWED_HEADERS.join(', ')
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('Access-Control-Allow-Origin', '*')
    reply.header('Access-Control-Expose-Headers', exposed)
    if (request.raw.method !== 'OPTIONS') return done()
    if (!request.headers.origin || !request.headers['access-control-request-method']) {
      reply.code(400).type('text/plain').send('Invalid Preflight Request')
      return
    }
    reply.header('Access-Control-Allow-Methods', methods)
    reply.header('Access-Control-Allow-Headers', allowed)
    reply.header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE)
    // Safari waits for a body on a 204 without Content-Length: 0.
    reply.code(204).header('Content-Length', '0').send()
  })
  // Every OPTIONS request is answered by the hook; the route only makes one match any path.
  fastify.options('*', { schema: { hide: true } }, (_request, reply) => {
    reply.callNotFound()
  })
}

export default fp(corsPlugin, { name: 'cors' })
