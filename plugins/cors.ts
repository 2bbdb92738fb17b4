import cors from '@fastify/cors'
import type { FastifyInstance, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Headers a browser-based agent or debugger may read (seed 001's and MCP's included): every header
 * the gateway sets or relays that is not CORS-safelisted, else `fetch` reads `null` (issue 42).
 * WWW-Authenticate carries the 401's resource-metadata URL and scope hints an MCP client's OAuth
 * flow starts from; RateLimit-* and Retry-After say when to come back; Location, Link and
 * X-Toolgate-Upstream-Content-Type are the upstream's, relayed by a tool call; Allow names the
 * methods of a 405.
 */
export const EXPOSED_HEADERS = [
  'API-Version',
  'Catalog-Version',
  'X-Request-Id',
  'ETag',
  'Tool-Manifest-Version',
  'Supported-Versions',
  'Mcp-Session-Id',
  'Retry-After',
  'WWW-Authenticate',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Location',
  'Link',
  'X-Toolgate-Upstream-Content-Type',
  'Allow',
]

const EXPOSED = EXPOSED_HEADERS.join(', ')

/**
 * A simple request's two CORS headers, which never vary. Set first of all by the one onRequest
 * hook every request runs (ops.ts, with the version and request-id headers), so a request refused
 * by a later hook carries them too.
 */
export function setSimpleCorsHeaders(reply: FastifyReply): void {
  reply.header('access-control-allow-origin', '*')
  reply.header('access-control-expose-headers', EXPOSED)
}

/**
 * CORS `*` everywhere (seed 000: discovery is fetched cross-origin, the Opal debugger calls tools
 * from the browser), but on open mode's operator routes, which take it back (plugins/access.ts,
 * issue 41): there no token stands between any web page and the whole catalog.
 *
 * A simple request's two headers never vary: `setSimpleCorsHeaders`, called first by the root
 * onRequest hook of ops.ts (one hook for every fixed header: each hook is a step of Fastify's hook
 * runner per request). @fastify/cors answers the preflights: it
 * is registered in a context of its own, which holds its `OPTIONS *` route and its hook, so only
 * OPTIONS requests run it. On every request its hook read `request.routeOptions` twice (a new
 * object each time) and copied its options: 15 µs of CPU of a 60 µs MCP `server/discover`
 * (issue 20, row 1k). The headers are the same bytes either way (test/app/cors.test.ts).
 */
async function corsPlugin(fastify: FastifyInstance) {
  await fastify.register(async function preflights(scope) {
    await scope.register(cors, {
      origin: '*',
      // Strings, not arrays: @fastify/cors joins an array on every request.
      methods: 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
      allowedHeaders: [
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
      ].join(', '),
      exposedHeaders: EXPOSED,
      maxAge: 600,
    })
  })
}

export default fp(corsPlugin, { name: 'cors' })
