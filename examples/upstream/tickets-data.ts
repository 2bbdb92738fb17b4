// The tickets service's in-memory model: types, seed data and how stored records are shown.
export const STATUSES = ['open', 'pending', 'closed'] as const
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const
export type Status = (typeof STATUSES)[number]
export type Priority = (typeof PRIORITIES)[number]

export interface Customer {
  email: string
  name?: string
  address?: Record<string, string>
}
export type Channel =
  | { kind: 'email'; address: string; subject?: string }
  | { kind: 'phone'; number: string; callbackRequested?: boolean }

export interface Comment {
  id: string
  ticketId: string
  linkedTicketId: string | null
  author: string
  body: string
  internal: boolean
  createdAt: string
  replies: Comment[]
}

export interface Ticket {
  id: string
  title: string
  description: string
  status: Status
  priority: Priority
  tags: string[]
  assignee: string | null
  customer?: Customer
  channel?: Channel
  resolution: string | null
  escalated: boolean
  comments: Comment[]
  createdAt: string
  updatedAt: string
}

export interface Attachment {
  id: string
  ticketId: string
  filename: string
  contentType: string
  size: number
  note: string | null
  createdAt: string
  data: Buffer
}

export interface HistoryEvent {
  at: string
  type: string
  detail?: string
}

/** All state of one server instance; two instances never share tickets. */
export interface TicketStore {
  tickets: Map<string, Ticket>
  attachments: Map<string, Attachment>
  history: Map<string, HistoryEvent[]>
  counters: { ticket: number; comment: number; attachment: number }
}

type Seed = Pick<Ticket, 'title' | 'description' | 'status' | 'priority' | 'tags' | 'assignee'> &
  Partial<Ticket>

const SEEDS: Seed[] = [
  {
    title: 'Cannot download invoice PDF',
    description: 'The PDF link in the billing portal returns an error page.',
    status: 'open',
    priority: 'high',
    tags: ['billing'],
    assignee: 'maria',
    customer: { email: 'ada@example.com', name: 'Ada Lovelace' },
    channel: { kind: 'email', address: 'ada@example.com', subject: 'Invoice download broken' },
  },
  {
    title: 'Password reset email never arrives',
    description: 'Requested a reset three times, nothing in inbox or spam.',
    status: 'open',
    priority: 'normal',
    tags: ['account', 'email'],
    assignee: null,
    customer: { email: 'grace@example.com', name: 'Grace Hopper' },
    channel: { kind: 'phone', number: '+441632960961', callbackRequested: true },
  },
  {
    title: 'Feature request: dark mode',
    description: 'Would love a dark theme for late-night triage.',
    status: 'pending',
    priority: 'low',
    tags: ['feature-request'],
    assignee: 'sam',
  },
  {
    title: 'Charged twice for March',
    description: 'My card shows two charges of 49 EUR for the March invoice.',
    status: 'closed',
    priority: 'urgent',
    tags: ['billing', 'vip'],
    assignee: 'maria',
    resolution: 'Refunded the duplicate charge.',
    customer: { email: 'ada@example.com', name: 'Ada Lovelace' },
  },
  {
    title: 'API returns 500 on /export',
    description: 'Every export since this morning fails with a 500.',
    status: 'open',
    priority: 'urgent',
    tags: ['api', 'vip'],
    assignee: 'maria',
    customer: { email: 'linus@example.com', name: 'Linus Torvalds' },
  },
]

export function seedTicketStore(): TicketStore {
  const store: TicketStore = {
    tickets: new Map(),
    attachments: new Map(),
    history: new Map(),
    counters: { ticket: 1000, comment: 0, attachment: 0 },
  }
  SEEDS.forEach((seed, i) => {
    const at = new Date(Date.UTC(2025, 2, 1 + i, 9, 30)).toISOString()
    const id = `T-${++store.counters.ticket}`
    store.tickets.set(id, {
      id,
      ...seed,
      resolution: seed.resolution ?? null,
      escalated: false,
      comments: [],
      createdAt: at,
      updatedAt: at,
    })
    store.history.set(id, [{ at, type: 'created' }])
  })
  seedThread(store, 'T-1001')
  return store
}

/** A comment with a reply, so the recursive Comment schema has real data behind it. */
function seedThread(store: TicketStore, ticketId: string): void {
  const ticket = store.tickets.get(ticketId)
  if (ticket === undefined) return
  const at = ticket.createdAt
  const reply: Comment = {
    id: `C-${++store.counters.comment}`,
    ticketId,
    linkedTicketId: null,
    author: 'ada@example.com',
    body: 'Still broken on Firefox.',
    internal: false,
    createdAt: at,
    replies: [],
  }
  const root: Comment = {
    id: `C-${++store.counters.comment}`,
    ticketId,
    linkedTicketId: null,
    author: 'maria',
    body: 'Which browser are you using?',
    internal: false,
    createdAt: at,
    replies: [reply],
  }
  ticket.comments.push(root)
}

export function newestFirst(tickets: Ticket[]): Ticket[] {
  return tickets.sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id, 'en', { numeric: true }),
  )
}

/** An attachment as the API shows it: metadata only, the bytes come from downloadAttachment. */
export function attachmentView(att: Attachment): Omit<Attachment, 'data'> {
  return {
    id: att.id,
    ticketId: att.ticketId,
    filename: att.filename,
    contentType: att.contentType,
    size: att.size,
    note: att.note,
    createdAt: att.createdAt,
  }
}

export function ticketText(ticket: Ticket): string {
  const commentText = (c: Comment): string => [c.body, ...c.replies.map(commentText)].join(' ')
  return [ticket.title, ticket.description, ...ticket.comments.map(commentText)].join(' ').toLowerCase()
}
