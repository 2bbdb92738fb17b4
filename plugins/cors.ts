import cors from '@fastify/cors'
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

/**
 * CORS `*` everywhere (seed 000: discovery is fetched cross-origin, the Opal debugger calls tools
 * from the browser); OPTIONS preflights answered by @fastify/cors.
 */
async function corsPlugin(fastify: FastifyInstance) {
  await fastify.register(cors, {
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
    exposedHeaders: EXPOSED_HEADERS.join(', '),
    maxAge: 600,
  })
}

export default fp(corsPlugin, { name: 'cors' })
