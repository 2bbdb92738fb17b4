// Small HTTP helpers for the example upstream: replies, errors, body reading, cookies, query
// lists and credential checks. node:http only, so the example runs with no dependencies.

import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Every body this server reads is capped, like a real API would; 6 MB leaves room for a 5 MB upload. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024

/** A reply value: handlers return these instead of writing to the response themselves. */
export interface Reply {
  status: number
  /** undefined → no body; Buffer → sent as is; anything else → JSON. */
  body?: unknown
  headers?: Record<string, string>
}

/** Thrown anywhere in a handler; the server turns it into the shared `{ error, message }` shape. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Array<{ field: string; problem: string }>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, body, headers }
}

export function noContent(): Reply {
  return { status: 204 }
}

export function errorReply(err: HttpError): Reply {
  const body: Record<string, unknown> = { error: err.code, message: err.message }
  if (err.details !== undefined && err.details.length > 0) body.details = err.details
  return { status: err.status, body, headers: err.headers }
}

export function notFound(what: string): HttpError {
  return new HttpError(404, 'not_found', `${what} does not exist`)
}

export function badRequest(message: string, details?: Array<{ field: string; problem: string }>): HttpError {
  return new HttpError(400, 'bad_request', message, details)
}

export function sendReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers }
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end()
    return
  }
  const isRaw = Buffer.isBuffer(reply.body)
  const payload = isRaw ? (reply.body as Buffer) : Buffer.from(JSON.stringify(reply.body))
  if (!isRaw) headers['content-type'] = 'application/json; charset=utf-8'
  headers['content-length'] = String(payload.length)
  res.writeHead(reply.status, headers).end(payload)
}

/** The media type without parameters, lower-cased: `Multipart/Form-Data; boundary=x` → `multipart/form-data`. */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buf = chunk as Buffer
    size += buf.length
    // Close the connection: the rest of an oversized body is never read.
    if (size > limit)
      throw new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`, undefined, {
        connection: 'close',
      })
    chunks.push(buf)
  }
  return Buffer.concat(chunks)
}

function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json')
}

/**
 * Reads a JSON body. `optional` bodies may be absent (no bytes at all); a present body must be
 * declared as JSON (415 otherwise) and parse (400 otherwise).
 */
export async function readJson(req: IncomingMessage, { optional = false } = {}): Promise<unknown> {
  const raw = await readBody(req)
  if (raw.length === 0) {
    if (optional) return undefined
    throw badRequest('a JSON request body is required')
  }
  const type = mediaType(req)
  if (!isJsonMediaType(type)) {
    throw new HttpError(
      415,
      'unsupported_media_type',
      `expected application/json, got ${type === '' ? 'no content-type' : type}`,
    )
  }
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch (err) {
    throw badRequest(`request body is not valid JSON: ${(err as Error).message}`)
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Reads a JSON body that must be an object. */
export async function readJsonObject(
  req: IncomingMessage,
  opts: { optional?: boolean } = {},
): Promise<Record<string, unknown>> {
  const body = await readJson(req, opts)
  if (body === undefined) return {}
  if (!isPlainObject(body)) throw badRequest('request body must be a JSON object')
  return body
}

export function requireMediaType(req: IncomingMessage, expected: string): void {
  const type = mediaType(req)
  if (type === expected) return
  throw new HttpError(
    415,
    'unsupported_media_type',
    `expected ${expected}, got ${type === '' ? 'no content-type' : type}`,
  )
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {}
  for (const pair of (header ?? '').split(';')) {
    const eq = pair.indexOf('=')
    if (eq <= 0) continue
    const name = pair.slice(0, eq).trim()
    const value = pair
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
    cookies[name] = safeDecode(value)
  }
  return cookies
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** A list query parameter, accepting both `tags=a,b` (explode false) and `tags=a&tags=b` (explode true). */
export function queryList(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '')
}

/** deepObject query parameters: `filter[assignee]=x&filter[priority]=y` → `{ assignee: 'x', priority: 'y' }`. */
export function deepObjectQuery(params: URLSearchParams, name: string): Record<string, string> {
  const result: Record<string, string> = {}
  const prefix = `${name}[`
  for (const [key, value] of params) {
    if (!key.startsWith(prefix) || !key.endsWith(']')) continue
    result[key.slice(prefix.length, -1)] = value
  }
  return result
}

/** One header value; repeated headers arrive as arrays in node:http, the first one wins here. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** Constant-time comparison, so the example does not teach timing leaks. */
export function secretEquals(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function unauthorized(message: string, challenge: string): HttpError {
  return new HttpError(401, 'unauthorized', message, undefined, { 'www-authenticate': challenge })
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')
  return match?.[1]
}

export function basicCredentials(req: IncomingMessage): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header(req, 'authorization') ?? '')
  if (match?.[1] === undefined) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) return undefined
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}
