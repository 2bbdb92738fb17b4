import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http'
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { McpCallResult, McpTool } from '../src/formats/index.js'
import { isRecord } from '../src/util/is-record.js'
import {
  bindingOf,
  encodeCursor,
  listPage,
  type McpCall,
  type McpPaging,
  mcpScope,
  pageSizeFor,
  SERVER_CAPABILITIES,
  SERVER_INFO,
} from './mcp-calls.js'
import { isMetaTool, type McpMode, META_TOOLS, STRICT_META_TOOLS } from './mcp-search.js'
import { clientGone } from './tools.js'

// The 2026-07-28 fast path (issue 20): server/discover, tools/list and tools/call answered without
// a per-request SDK Server, web Request and result validation. Lists are bytes rendered once per
// (visible catalog, view, dialect, mode, page); only the JSON-RPC id is written per request. It
// takes exactly the requests the SDK's createMcpHandler serves on its happy path, and answers what
// the SDK answers, byte for byte (test/app/mcp-fast.test.ts); anything else is the SDK's. Of the
// SDK's modern ladder (SDK 2.4) it skips what cannot apply here: no client capability is required
// for these methods, and the x-mcp-header and scope-challenge steps are McpServer's, not Server's.

const MODERN = '2026-07-28'

/** How the SDK's 2026-07-28 encode stamps every result: complete, and who answered. */
const STAMP = { resultType: 'complete' } as const
const META = { _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } } as const

type Id = string | number

export type FastRequest =
  | { readonly method: 'server/discover'; readonly id: Id }
  | { readonly method: 'tools/list'; readonly id: Id; readonly cursor: string | undefined }
  | {
      readonly method: 'tools/call'
      readonly id: Id
      readonly name: string
      readonly args: Record<string, unknown>
    }

const MESSAGE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params'])
const PARAM_KEYS: Readonly<Record<FastRequest['method'], ReadonlySet<string>>> = {
  'server/discover': new Set(['_meta']),
  'tools/list': new Set(['_meta', 'cursor']),
  'tools/call': new Set(['_meta', 'name', 'arguments']),
}
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
])

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}

/**
 * The request when it is one the fast path answers exactly as the SDK would, else undefined: a
 * 2026-07-28 request (headers and `_meta` envelope as the SDK checks them) with a string or
 * safe-integer id and no member the SDK would read besides those it answers from. Search mode's
 * meta-tools and paged search lists stay on the SDK.
 */
export function fastRequest(
  message: unknown,
  headers: IncomingHttpHeaders,
  mode: McpMode,
): FastRequest | undefined {
  if (!isRecord(message)) return undefined
  const { id, method, params } = message
  if (method !== 'server/discover' && method !== 'tools/list' && method !== 'tools/call') return undefined
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined
  if (message.jsonrpc !== '2.0' || !onlyKeys(message, MESSAGE_KEYS)) return undefined
  if (
    headers['mcp-protocol-version'] !== MODERN ||
    headers['mcp-method'] !== method ||
    !isJsonContentType(headers['content-type'])
  )
    return undefined
  if (!isRecord(params) || !onlyKeys(params, PARAM_KEYS[method]) || !modernEnvelope(params._meta))
    return undefined
  if (method === 'server/discover') return { method, id: id as Id }
  if (method === 'tools/list') {
    const { cursor } = params
    if (cursor !== undefined && (typeof cursor !== 'string' || mode === 'search')) return undefined
    return { method, id: id as Id, cursor }
  }
  const { name, arguments: args } = params
  // Mcp-Name mirrors the name; a `=?base64?…?=` value the SDK would decode first.
  if (typeof name !== 'string' || headers['mcp-name'] !== name || name.startsWith('=?')) return undefined
  if (mode === 'search' && isMetaTool(name)) return undefined
  // The SDK's request validation copies the arguments, and its copy drops an own `__proto__` key
  // (the tool would see other arguments): left to it.
  if (args !== undefined && (!isRecord(args) || Object.hasOwn(args, '__proto__'))) return undefined
  return { method, id: id as Id, name, args: args ?? {} }
}

/** The SDK's verdict on a `_meta` envelope, by its JSON text: clients send the same one every time. */
const envelopes = new Map<string, boolean>()
const ENVELOPES_KEPT = 64
const ENVELOPE_MAX_CHARS = 1024

/**
 * The envelopes judged last (a copy of each, most recent first), compared as values before the
 * JSON text is built: issue 20's profile of server/discover had `JSON.stringify(meta)` and its
 * lookup at ~70 % of the body's JSON.parse. A client sends the same envelope every time.
 */
interface Judged {
  readonly meta: unknown
  readonly verdict: boolean
}
const recent: Judged[] = []
const RECENT_KEPT = 8

function modernEnvelope(meta: unknown): boolean {
  if (!isRecord(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN || !onlyKeys(meta, ENVELOPE_KEYS))
    return false
  for (const judged of recent) if (sameJson(meta, judged.meta)) return judged.verdict
  const text = JSON.stringify(meta)
  if (text.length > ENVELOPE_MAX_CHARS) return false
  let verdict = envelopes.get(text)
  if (verdict === undefined) {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: MODERN,
      mcpMethodHeader: 'tools/list',
      body: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: meta } },
    })
    verdict = route.kind === 'modern' && route.classification.revision === MODERN
    if (envelopes.size >= ENVELOPES_KEPT) envelopes.clear()
    envelopes.set(text, verdict)
  }
  recent.unshift({ meta: JSON.parse(text), verdict })
  if (recent.length > RECENT_KEPT) recent.pop()
  return verdict
}

/**
 * Whether the parsed JSON `value` is the JSON value `kept`, key order aside (what the SDK's
 * verdict depends on). The walk follows `kept`, a judged envelope of at most 1,024 characters,
 * so a large or deep `value` costs no more than that.
 */
export function sameJson(value: unknown, kept: unknown): boolean {
  if (value === kept) return true
  if (typeof kept !== 'object' || kept === null || typeof value !== 'object' || value === null) return false
  if (Array.isArray(kept)) {
    if (!Array.isArray(value) || value.length !== kept.length) return false
    for (let i = 0; i < kept.length; i++) if (!sameJson(value[i], kept[i])) return false
    return true
  }
  if (Array.isArray(value)) return false
  const mine = value as Record<string, unknown>
  const theirs = kept as Record<string, unknown>
  let keys = 0
  for (const key in theirs) {
    keys++
    if (!Object.hasOwn(mine, key) || !sameJson(mine[key], theirs[key])) return false
  }
  for (const _key in mine) if (--keys < 0) return false
  return true
}

interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: 'public' | 'private'
}

/**
 * A list's pages: the bytes up to the id, each rendered on first ask; the cursors it issues, by
 * offset. Any other cursor (another version's, another replica's page size, a forged one) is the
 * SDK path's to refuse or read.
 */
interface Pages {
  readonly heads: Map<number, Buffer>
  readonly byCursor: ReadonlyMap<string, number>
}

const RESULT = '{"result":'
const idTail = (id: Id) => `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`

/** Answers a fast request, per plugin instance (the cache hint is the instance's access mode's). */
export function createFastPath(fastify: FastifyInstance, hint: CacheHint, paging: McpPaging) {
  // Small answers are strings, written with their id in one piece.
  const discover =
    RESULT +
    JSON.stringify({
      supportedVersions: [MODERN],
      capabilities: SERVER_CAPABILITIES,
      ...STAMP,
      ...hint,
      ...META,
    })
  const searchListOf = (tools: readonly McpTool[]) =>
    RESULT + JSON.stringify({ tools, ...STAMP, ...hint, ...META })
  const searchList = searchListOf(META_TOOLS)
  const strictSearchList = searchListOf(STRICT_META_TOOLS)
  // A list's tools are rendered per visible catalog, view and dialect: one array, one binding.
  const listed = new WeakMap<readonly McpTool[], Pages>()
  const pagesOf = (tools: readonly McpTool[], call: McpCall): Pages => {
    let pages = listed.get(tools)
    if (!pages) {
      const binding = bindingOf(call)
      const size = pageSizeFor(tools.length, paging)
      const byCursor = new Map<string, number>()
      for (let offset = size; offset < tools.length; offset += size)
        byCursor.set(encodeCursor(binding, offset), offset)
      pages = { heads: new Map(), byCursor }
      listed.set(tools, pages)
    }
    return pages
  }
  const pageHead = (call: McpCall, cursor: string | undefined): Buffer | undefined => {
    const { tools } = mcpScope(fastify, call)
    const pages = pagesOf(tools, call)
    const offset = cursor === undefined ? 0 : pages.byCursor.get(cursor)
    if (offset === undefined) return undefined
    let head = pages.heads.get(offset)
    if (!head) {
      const page = listPage(tools, bindingOf(call), offset, paging)
      head = Buffer.from(RESULT + JSON.stringify({ ...page, ...STAMP, ...hint, ...META }))
      pages.heads.set(offset, head)
    }
    return head
  }

  /**
   * Answers `fast` and says true, or says false without touching the reply (a cursor it does not
   * know). Lists are answered at once; a tool call's answer is a promise.
   */
  return function answer(reply: FastifyReply, fast: FastRequest, call: McpCall): boolean | Promise<true> {
    if (fast.method === 'server/discover') {
      write(reply, discover, idTail(fast.id))
      return true
    }
    if (fast.method === 'tools/list') {
      if (call.mode === 'search') {
        write(reply, call.strict ? strictSearchList : searchList, idTail(fast.id))
        return true
      }
      const head = pageHead(call, fast.cursor)
      if (!head) return false
      write(reply, head, idTail(fast.id))
      return true
    }
    return answerCall(reply, fast, call)
  }

  async function answerCall(
    reply: FastifyReply,
    fast: Extract<FastRequest, { method: 'tools/call' }>,
    call: McpCall,
  ): Promise<true> {
    let body: string
    try {
      const result = await mcpScope(fastify, call).callTool(fast.name, fast.args, clientGone(reply))
      body = RESULT + JSON.stringify(encodeCallResult(result)) + idTail(fast.id)
    } catch (err) {
      body = errorAnswer(fast.id, err)
    }
    write(reply, body)
    return true
  }
}

/** A tools/call result as the SDK's 2026-07-28 encode stamps it: resultType, then serverInfo. */
function encodeCallResult(result: McpCallResult): McpCallResult {
  return { ...result, ...STAMP, ...META }
}

/** A handler's error as the SDK's protocol layer answers it (in-band: HTTP 200). */
function errorAnswer(id: Id, err: unknown): string {
  const { code, message, data } = (err ?? {}) as { code?: unknown; message?: unknown; data?: unknown }
  const thrown = Number.isSafeInteger(code) ? (code as number) : ProtocolErrorCode.InternalError
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      // The 2026-07-28 codec answers the retired ResourceNotFound (-32002) as InvalidParams.
      code: thrown === -32002 ? ProtocolErrorCode.InvalidParams : thrown,
      message: message ?? 'Internal error',
      ...(data !== undefined ? { data } : {}),
    },
  })
}

/**
 * Writes a JSON answer the way the SDK's Node adapter does (the headers hooks set, then status and
 * content type, no onSend), with a length instead of chunks. A page's bytes are written as they
 * are, the id's `tail` after them (not copied into one buffer); a string head goes with its tail.
 * The headers go to Node in one writeHead, as Fastify's own send passes them, not one setHeader
 * each (issue 20: the per-header calls were a tenth of server/discover's route).
 */
function write(reply: FastifyReply, head: Buffer | string, tail?: string) {
  const whole = typeof head === 'string' && tail !== undefined ? head + tail : undefined
  const res = reply.raw
  // The headers the hooks gave the reply, and any set on Node's response (Fastify's documented copy of both).
  const headers: OutgoingHttpHeaders = {}
  const given = reply.getHeaders()
  for (const name in given) {
    const value = given[name]
    if (value !== undefined) headers[name] = value
  }
  headers['content-type'] = 'application/json'
  headers['content-length'] =
    whole !== undefined
      ? Buffer.byteLength(whole)
      : Buffer.byteLength(head) + (tail === undefined ? 0 : Buffer.byteLength(tail))
  reply.hijack()
  res.writeHead(200, headers)
  if (whole !== undefined) res.end(whole)
  else if (tail === undefined) res.end(head)
  else {
    res.write(head)
    res.end(tail)
  }
}
