// The Tickets service of specs/tickets.yaml, served under /tickets (the spec's server base path).
// Spec paths therefore appear twice on the wire: GET /tickets/tickets/T-1001.
import { bearerToken, header, secretEquals, unauthorized } from './http-utils.js'
import { type Authenticator, createRouter, type ServiceHandler } from './router.js'
import { seedTicketStore } from './tickets-data.js'
import { createTicketHandlers } from './tickets-handlers.js'

export interface TicketsOptions {
  /** Value the X-Api-Key header must carry. */
  apiKey: string
  /** Token for the operations secured with bearerAuth (escalateTicket, getStats). */
  bearerToken: string
}

export function createTicketsService(opts: TicketsOptions): ServiceHandler {
  const store = seedTicketStore()
  const apiKey: Authenticator = (req) => {
    const given = header(req, 'x-api-key')
    if (given === undefined) throw unauthorized('missing X-Api-Key header', 'ApiKey header="X-Api-Key"')
    if (!secretEquals(given, opts.apiKey)) throw unauthorized('wrong API key', 'ApiKey header="X-Api-Key"')
  }
  const bearer: Authenticator = (req) => {
    const token = bearerToken(req)
    if (token === undefined) throw unauthorized('missing bearer token', 'Bearer realm="tickets"')
    if (!secretEquals(token, opts.bearerToken))
      throw unauthorized('wrong bearer token', 'Bearer realm="tickets", error="invalid_token"')
  }
  const h = createTicketHandlers(store)
  return createRouter('/tickets', [
    { method: 'GET', path: '/status', auth: null, handle: h.status },
    { method: 'GET', path: '/tickets', auth: apiKey, handle: h.list },
    { method: 'POST', path: '/tickets', auth: apiKey, handle: h.create },
    { method: 'GET', path: '/tickets/:ticketId', auth: apiKey, handle: h.get },
    { method: 'PATCH', path: '/tickets/:ticketId', auth: apiKey, handle: h.update },
    { method: 'PUT', path: '/tickets/:ticketId', auth: apiKey, handle: h.replace },
    { method: 'DELETE', path: '/tickets/:ticketId', auth: apiKey, handle: h.remove },
    { method: 'POST', path: '/tickets/:ticketId/comments', auth: apiKey, handle: h.comment },
    { method: 'POST', path: '/tickets/:ticketId/attachments', auth: apiKey, handle: h.upload },
    { method: 'GET', path: '/tickets/:ticketId/attachments/:attachmentId', auth: apiKey, handle: h.download },
    { method: 'GET', path: '/tickets/:ticketId/history', auth: apiKey, handle: h.history },
    { method: 'POST', path: '/tickets/:ticketId/escalate', auth: bearer, handle: h.escalate },
    { method: 'GET', path: '/search', auth: apiKey, handle: h.search },
    { method: 'GET', path: '/internal/stats', auth: bearer, handle: h.stats },
    { method: 'POST', path: '/internal/reindex', auth: apiKey, handle: h.reindex },
  ])
}
