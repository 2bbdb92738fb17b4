// Request validation for the tickets service. It mirrors specs/tickets.yaml closely enough that a
// wrongly built request (a missing field, a leaked path parameter, a bad enum) gets a 400 naming why.
import { badRequest, isPlainObject } from './http-utils.js'
import { PRIORITIES, type Priority, STATUSES } from './tickets-data.js'

type Check = (value: unknown) => string | undefined

const nonEmptyString =
  (max?: number): Check =>
  (v) => {
    if (typeof v !== 'string') return 'must be a string'
    if (v.length === 0) return 'must not be empty'
    if (max !== undefined && v.length > max) return `must be at most ${max} characters`
    return undefined
  }
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? undefined : `must be one of ${values.join(', ')}`
const stringArray: Check = (v) =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'must be an array of strings'
const nullableString: Check = (v) =>
  v === null || typeof v === 'string' ? undefined : 'must be a string or null'
const looksLikeEmail = (v: unknown): boolean => typeof v === 'string' && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)

const checkCustomer: Check = (v) => {
  if (!isPlainObject(v)) return 'must be an object'
  if (!looksLikeEmail(v.email)) return 'email must be an email address'
  if (v.name !== undefined && typeof v.name !== 'string') return 'name must be a string'
  return undefined
}

const checkChannel: Check = (v) => {
  if (!isPlainObject(v)) return 'must be an object'
  if (v.kind === 'email') return looksLikeEmail(v.address) ? undefined : 'address must be an email address'
  if (v.kind === 'phone')
    return typeof v.number === 'string' && /^\+[1-9][0-9]{6,14}$/.test(v.number)
      ? undefined
      : 'number must be an E.164 phone number'
  return 'kind must be email or phone'
}

const FIELD_CHECKS: Record<string, Check> = {
  title: nonEmptyString(200),
  description: nonEmptyString(),
  status: oneOf(STATUSES),
  priority: oneOf(PRIORITIES),
  tags: stringArray,
  assignee: nullableString,
  resolution: (v) => (typeof v === 'string' ? undefined : 'must be a string'),
  customer: checkCustomer,
  channel: checkChannel,
}

const BODY_RULES = {
  create: {
    allowed: ['title', 'description', 'priority', 'tags', 'customer', 'channel'],
    required: ['title', 'description', 'priority'],
  },
  replace: {
    allowed: ['title', 'description', 'status', 'priority', 'tags', 'assignee', 'customer'],
    required: ['title', 'description', 'priority', 'status'],
  },
  patch: {
    allowed: ['title', 'description', 'status', 'priority', 'tags', 'assignee', 'resolution'],
    required: [],
  },
} as const

/**
 * Throws a 400 listing every problem. Unknown fields are rejected on purpose: a gateway that
 * leaks a path parameter into the body (or drops a field) should see it, not have it ignored.
 */
export function checkTicketBody(body: Record<string, unknown>, mode: keyof typeof BODY_RULES): void {
  const rules = BODY_RULES[mode]
  const details: Array<{ field: string; problem: string }> = []
  const allowed: readonly string[] = rules.allowed
  for (const field of rules.required) {
    if (body[field] === undefined) details.push({ field, problem: 'is required' })
  }
  for (const [field, value] of Object.entries(body)) {
    if (!allowed.includes(field)) {
      details.push({ field, problem: 'is not a known field' })
      continue
    }
    const problem = FIELD_CHECKS[field]?.(value)
    if (problem !== undefined) details.push({ field, problem })
  }
  if (mode === 'patch' && Object.keys(body).length === 0)
    details.push({ field: '', problem: 'at least one field must be given' })
  if (details.length > 0) throw badRequest(`invalid ${mode === 'patch' ? 'update' : 'ticket'}`, details)
}

export function checkCommentBody(body: Record<string, unknown>): void {
  const details: Array<{ field: string; problem: string }> = []
  const bodyProblem = nonEmptyString()(body.body)
  if (bodyProblem !== undefined) details.push({ field: 'body', problem: bodyProblem })
  if (body.internal !== undefined && typeof body.internal !== 'boolean')
    details.push({ field: 'internal', problem: 'must be a boolean' })
  if (
    body.ticketId !== undefined &&
    !(typeof body.ticketId === 'string' && /^T-[0-9]+$/.test(body.ticketId))
  ) {
    details.push({ field: 'ticketId', problem: 'must look like T-1001' })
  }
  for (const field of Object.keys(body)) {
    if (!['body', 'internal', 'ticketId'].includes(field))
      details.push({ field, problem: 'is not a known field' })
  }
  if (details.length > 0) throw badRequest('invalid comment', details)
}

// ---- query parameters ----------------------------------------------------------------------

export function enumParam<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw badRequest(`${name} must be one of ${allowed.join(', ')}`, [
    { field: name, problem: `must be one of ${allowed.join(', ')}` },
  ])
}

export function limitParam(q: URLSearchParams): number {
  const raw = q.get('limit')
  if (raw === null) return 20
  const limit = Number(raw)
  if (Number.isInteger(limit) && limit >= 1 && limit <= 100) return limit
  throw badRequest('limit must be an integer from 1 to 100', [
    { field: 'limit', problem: 'must be an integer from 1 to 100' },
  ])
}

export function checkFilter(filter: Record<string, string>): void {
  for (const key of Object.keys(filter)) {
    if (key !== 'assignee' && key !== 'priority')
      throw badRequest(`unknown filter[${key}]; use filter[assignee] or filter[priority]`)
  }
  if (filter.priority !== undefined) enumParam<Priority>(filter.priority, PRIORITIES, 'filter[priority]')
}

/** Cursors are opaque to clients; here they are a base64url offset. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url')
}

export function decodeCursor(cursor: string | null): number {
  if (cursor === null || cursor === '') return 0
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (match?.[1] === undefined)
    throw badRequest('cursor is not one this server issued; pass nextCursor from the previous page')
  return Number(match[1])
}
