import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { API_VERSION, PACKAGE_VERSION } from '../src/version.js'

/**
 * The gateway's own OpenAPI description at `GET /documentation/json` (@fastify/swagger, built from
 * the route schemas). Registered before every route so that it sees them all.
 */
async function openapi(fastify: FastifyInstance) {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'toolgate',
        version: PACKAGE_VERSION,
        description: `OpenAPI descriptions as tools for AI agents: Opal discovery, OpenAI and Claude tool documents, MCP, the session manifest (API ${API_VERSION}), tool calls and operations.`,
      },
    },
  })
  fastify.get('/documentation/json', { schema: { hide: true } }, async () => fastify.swagger())
}

export default fp(openapi, { name: 'openapi' })
