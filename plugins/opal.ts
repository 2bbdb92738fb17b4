import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DISCOVER_VIEW } from '../src/catalog/build-views.js'
import { errors } from '../src/errors.js'
import { sendDocument } from './send-document.js'

interface DiscoveryQuery {
  Querystring: { profile?: string }
}

/**
 * Opal discovery (seed 000): anonymous, never cached, CORS open, one precomputed document per
 * view. `/discovery/` answers too: Opal resolves endpoints against the registered URL's
 * directory, and a trailing slash moves the tools under /discovery/tools (SPEC §2).
 */
export default async function opal(fastify: FastifyInstance) {
  const schema = {
    querystring: {
      type: 'object',
      properties: { profile: { type: 'string', minLength: 1, maxLength: 64 } },
    },
  }
  // Not async: a 304 is answered without a promise (issue 20). Fastify sends an error thrown here
  // as it sends an async handler's.
  const discovery = (request: FastifyRequest<DiscoveryQuery>, reply: FastifyReply) => {
    const profile = request.query.profile ?? DISCOVER_VIEW
    const snapshot = fastify.catalogStore.current()
    const catalog = fastify.access.catalogFor(request.caller, snapshot.catalog)
    const document = snapshot.documentsOf(catalog).get('opal', profile)
    if (!document) throw new errors.profileUnknown(profile, Object.keys(catalog.views).join(', '))
    reply.header('Cache-Control', 'no-cache, no-store, must-revalidate')
    return sendDocument(request, reply, document)
  }
  fastify.get<DiscoveryQuery>('/discovery', { schema, config: { access: 'discovery' } }, discovery)
}
