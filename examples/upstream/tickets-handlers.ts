// Handlers of the tickets service, one per operation of specs/tickets.yaml. Each returns a Reply
// or throws an HttpError; authentication already happened in the router.
import { parseMultipart } from './body-parsers.js'
import {
  badRequest,
  deepObjectQuery,
  HttpError,
  header,
  json,
  noContent,
  notFound,
  parseCookies,
  queryList,
  readBody,
  readJsonObject,
  requireMediaType,
} from './http-utils.js'
import type { Handler } from './router.js'
import {
  type Attachment,
  attachmentView,
  type Comment,
  newestFirst,
  STATUSES,
  type Ticket,
  type TicketStore,
  ticketText,
} from './tickets-data.js'
import {
  checkCommentBody,
  checkFilter,
  checkTicketBody,
  decodeCursor,
  encodeCursor,
  enumParam,
  limitParam,
} from './tickets-validation.js'

const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024

export function createTicketHandlers(store: TicketStore) {
  const now = (): string => new Date().toISOString()
  const find = (id: string | undefined): Ticket => {
    const ticket = id === undefined ? undefined : store.tickets.get(id)
    if (ticket === undefined) throw notFound(`ticket ${id ?? ''}`)
    return ticket
  }
  const record = (ticket: Ticket, type: string, detail?: string): void => {
    ticket.updatedAt = now()
    store.history
      .get(ticket.id)
      ?.push({ at: ticket.updatedAt, type, ...(detail === undefined ? {} : { detail }) })
  }

  return {
    status: () =>
      json(200, {
        status: 'ok',
        openTickets: [...store.tickets.values()].filter((t) => t.status === 'open').length,
      }),

    list: ({ url }) => {
      const q = url.searchParams
      const status = enumParam(q.get('status') ?? 'open', STATUSES, 'status')
      const limit = limitParam(q)
      const tags = queryList(q, 'tags')
      const filter = deepObjectQuery(q, 'filter')
      checkFilter(filter)
      const matches = newestFirst([...store.tickets.values()]).filter(
        (t) =>
          t.status === status &&
          tags.every((tag) => t.tags.includes(tag)) &&
          (filter.assignee === undefined || t.assignee === filter.assignee) &&
          (filter.priority === undefined || t.priority === filter.priority),
      )
      const offset = decodeCursor(q.get('cursor'))
      const items = matches.slice(offset, offset + limit)
      const nextCursor = offset + limit < matches.length ? encodeCursor(offset + limit) : null
      return json(200, { items, nextCursor })
    },

    create: async ({ req }) => {
      const body = await readJsonObject(req)
      checkTicketBody(body, 'create')
      const at = now()
      const id = `T-${++store.counters.ticket}`
      const ticket: Ticket = {
        id,
        status: 'open',
        assignee: null,
        ...(body as Pick<Ticket, 'title' | 'description' | 'priority' | 'customer' | 'channel'>),
        tags: (body.tags as string[] | undefined) ?? [],
        resolution: null,
        escalated: false,
        comments: [],
        createdAt: at,
        updatedAt: at,
      }
      store.tickets.set(id, ticket)
      store.history.set(id, [{ at, type: 'created' }])
      return json(201, ticket, { location: `/tickets/tickets/${id}` })
    },

    get: ({ params }) => json(200, find(params.ticketId)),

    update: async ({ req, params }) => {
      const ticket = find(params.ticketId)
      const body = await readJsonObject(req)
      checkTicketBody(body, 'patch')
      Object.assign(ticket, body)
      record(ticket, 'updated', Object.keys(body).join(', '))
      return json(200, ticket)
    },

    replace: async ({ req, params }) => {
      const ticket = find(params.ticketId)
      const body = await readJsonObject(req)
      checkTicketBody(body, 'replace')
      // A PUT clears what it leaves out; identity, channel, comments and timestamps survive.
      const { id, channel, resolution, escalated, comments, createdAt, updatedAt } = ticket
      const replaced: Ticket = {
        id,
        tags: [],
        assignee: null,
        ...(body as Pick<Ticket, 'title' | 'description' | 'status' | 'priority'>),
        ...(channel === undefined ? {} : { channel }),
        resolution,
        escalated,
        comments,
        createdAt,
        updatedAt,
      }
      store.tickets.set(ticket.id, replaced)
      record(replaced, 'replaced')
      return json(200, replaced)
    },

    remove: ({ params }) => {
      const ticket = find(params.ticketId)
      store.tickets.delete(ticket.id)
      store.history.delete(ticket.id)
      for (const [key, att] of store.attachments)
        if (att.ticketId === ticket.id) store.attachments.delete(key)
      return noContent()
    },

    comment: async ({ req, params }) => {
      const ticket = find(params.ticketId)
      const body = await readJsonObject(req)
      checkCommentBody(body)
      const comment: Comment = {
        id: `C-${++store.counters.comment}`,
        ticketId: ticket.id,
        // The body's ticketId is a cross-link, deliberately distinct from the path's ticketId.
        linkedTicketId: typeof body.ticketId === 'string' ? body.ticketId : null,
        author: 'agent',
        body: body.body as string,
        internal: body.internal === true,
        createdAt: now(),
        replies: [],
      }
      ticket.comments.push(comment)
      record(ticket, 'commented', comment.id)
      return json(201, comment)
    },

    upload: async ({ req, params }) => {
      const ticket = find(params.ticketId)
      requireMediaType(req, 'multipart/form-data')
      const { fields, files } = parseMultipart(await readBody(req), req.headers['content-type'] ?? '')
      const file = files.find((f) => f.field === 'file')
      if (file === undefined)
        throw badRequest('multipart field "file" (a file part) is required', [
          { field: 'file', problem: 'is required' },
        ])
      if (file.size > MAX_ATTACHMENT_BYTES)
        throw new HttpError(
          413,
          'payload_too_large',
          `attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes`,
        )
      const attachment: Attachment = {
        id: `A-${++store.counters.attachment}`,
        ticketId: ticket.id,
        filename: file.filename,
        contentType: file.contentType,
        size: file.size,
        note: fields.note ?? null,
        createdAt: now(),
        data: file.data,
      }
      store.attachments.set(attachment.id, attachment)
      record(ticket, 'attachment_added', attachment.id)
      return json(201, attachmentView(attachment), {
        location: `/tickets/tickets/${ticket.id}/attachments/${attachment.id}`,
      })
    },

    download: ({ params }) => {
      const ticket = find(params.ticketId)
      const att = store.attachments.get(params.attachmentId ?? '')
      if (att === undefined || att.ticketId !== ticket.id)
        throw notFound(`attachment ${params.attachmentId ?? ''}`)
      return {
        status: 200,
        body: att.data,
        headers: {
          'content-type': att.contentType,
          'content-disposition': `attachment; filename="${att.filename.replace(/["\\\r\n]/g, '_')}"`,
        },
      }
    },

    history: ({ params }) => {
      const ticket = find(params.ticketId)
      return json(200, { ticketId: ticket.id, events: store.history.get(ticket.id) ?? [] })
    },

    escalate: async ({ req, params }) => {
      const ticket = find(params.ticketId)
      const body = await readJsonObject(req, { optional: true })
      if (body.reason !== undefined && typeof body.reason !== 'string')
        throw badRequest('invalid escalation', [{ field: 'reason', problem: 'must be a string' }])
      ticket.priority = 'urgent'
      ticket.escalated = true
      record(ticket, 'escalated', typeof body.reason === 'string' ? body.reason : undefined)
      return json(200, ticket)
    },

    search: ({ req, url }) => {
      const q = url.searchParams.get('q')?.trim() ?? ''
      if (q === '')
        throw badRequest('query parameter q is required', [{ field: 'q', problem: 'is required' }])
      const priority = header(req, 'x-request-priority') ?? null
      if (priority !== null) enumParam(priority, ['low', 'normal', 'high'], 'X-Request-Priority')
      const words = q.toLowerCase().split(/\s+/)
      const items = newestFirst([...store.tickets.values()]).filter((t) =>
        words.every((w) => ticketText(t).includes(w)),
      )
      // Echo the header and cookie so a caller can see that the gateway serialized them.
      const received = { priority, sessionHint: parseCookies(header(req, 'cookie')).session_hint ?? null }
      return json(200, { items: items.slice(0, limitParam(url.searchParams)), received })
    },

    stats: () => {
      const byStatus: Record<string, number> = {}
      const byPriority: Record<string, number> = {}
      for (const t of store.tickets.values()) {
        byStatus[t.status] = (byStatus[t.status] ?? 0) + 1
        byPriority[t.priority] = (byPriority[t.priority] ?? 0) + 1
      }
      return json(200, { byStatus, byPriority })
    },

    reindex: () => json(202, { status: 'reindexing' }),
  } satisfies Record<string, Handler>
}
