import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DISCOVER_VIEW } from '../src/catalog/build-views.js'
import { errors } from '../src/errors.js'
import { sendDocument } from './send-document.js'

interface DocumentRoute {
  Params: { '*'?: string }
  Querystring: { profile?: string; strict?: string }
}

const querystring = {
  type: 'object',
  properties: {
    profile: { type: 'string', minLength: 1, maxLength: 64 },
    strict: { type: 'string', enum: ['true', 'false'] },
  },
}

type Family = 'openai' | 'claude' | 'openai-deferred' | 'claude-deferred'

/** The served format of a family; `?strict=true` picks OpenAI's strict variant. */
function formatOf(family: Family, strict: boolean): string {
  if (!strict || family.startsWith('claude')) return family
  return family === 'openai' ? 'openai-strict' : 'openai-deferred-strict'
}

/**
 * OpenAI and Anthropic tool documents (seed 002): every service at `/openai.json` and
 * `/claude.json`, one service at `/openai/<id or alias>.json` (ids may hold dots, so the name is
 * everything before the final `.json`). `?profile=` picks a view, `?strict=true` OpenAI's strict mode.
 * The deferred forms (`/openai-deferred.json`, `/claude-deferred.json`, and per service) are the
 * same tools for the providers' tool search: loaded on demand, not up front (issue 15).
 */
export default async function openai(fastify: FastifyInstance) {
  // Not async, as Opal's discovery: no promise per request.
  const serve = (family: Family, perService: boolean) =>
    function document(request: FastifyRequest<DocumentRoute>, reply: FastifyReply) {
      const snapshot = fastify.catalogStore.current()
      const view = request.query.profile ?? DISCOVER_VIEW
      if (!snapshot.catalog.views[view]) {
        throw new errors.profileUnknown(view, Object.keys(snapshot.catalog.views).join(', '))
      }
      const documents = snapshot.documentsOf(fastify.access.catalogFor(request.caller, snapshot.catalog))
      const format = formatOf(family, request.query.strict === 'true')
      if (!perService) return sendDocument(request, reply, documents.get(format, view)!)
      const name = (request.params['*'] ?? '').replace(/\.json$/, '')
      const service = snapshot.findService(name)
      if (!service || !(request.params['*'] ?? '').endsWith('.json')) {
        throw new errors.serviceUnknown(name, snapshot.catalog.services.map((s) => s.alias).join(', '))
      }
      return sendDocument(request, reply, documents.service(format, view, service.id)!)
    }
  const options = { schema: { querystring }, config: { access: 'discovery' as const } }
  fastify.get<DocumentRoute>('/openai.json', options, serve('openai', false))
  fastify.get<DocumentRoute>('/claude.json', options, serve('claude', false))
  fastify.get<DocumentRoute>('/openai/*', options, serve('openai', true))
  fastify.get<DocumentRoute>('/claude/*', options, serve('claude', true))
  fastify.get<DocumentRoute>('/openai-deferred.json', options, serve('openai-deferred', false))
  fastify.get<DocumentRoute>('/claude-deferred.json', options, serve('claude-deferred', false))
  fastify.get<DocumentRoute>('/openai-deferred/*', options, serve('openai-deferred', true))
  fastify.get<DocumentRoute>('/claude-deferred/*', options, serve('claude-deferred', true))
}
