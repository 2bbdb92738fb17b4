import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Catalog, Tool } from '../src/catalog/index.js'
import { invalidArguments, type Violation } from '../src/executor/index.js'
import {
  conformResult,
  type McpCallResult,
  type McpTool,
  renderCallResult,
  renderMcpTools,
} from '../src/formats/index.js'
import type { CatalogSnapshot } from '../src/store/index.js'
import { isRecord } from '../src/util/is-record.js'
import { logsInfo } from '../src/util/log-level.js'
import { memoPerOwner } from '../src/util/memo.js'
import { PACKAGE_VERSION } from '../src/version.js'
import { callerName } from './access.js'
import type { McpMode } from './mcp-search.js'

// What one MCP request sees (its caller's catalog, the view's tools in its dialect) and how it
// calls a tool: shared by the SDK's server and the 2026-07-28 fast path (mcp-fast.ts).

/**
 * tools/list paging (issue 42): `mcp.pageSize` tools a page, more when the list would need more
 * than `mcp.maxPages` pages. SDK 2.x's combined listTools() (listMaxPages) and @openai/agents'
 * MCP servers (maxListPages) stop at 64 pages by default and throw: at 100 a page a 7,014-tool
 * catalog failed in both. So every list, however many files it comes from, fits in 50 pages.
 */
export const DEFAULT_MCP_PAGE_SIZE = 100
export const DEFAULT_MCP_MAX_PAGES = 50

export interface McpPaging {
  readonly pageSize: number
  readonly maxPages: number
}

/** Tools on one page of a list of `count`: the configured size, or more to fit in maxPages. */
export function pageSizeFor(count: number, paging: McpPaging): number {
  return Math.max(paging.pageSize, Math.ceil(count / paging.maxPages))
}
export const SERVER_INFO = { name: 'toolgate', version: PACKAGE_VERSION } as const
export const SERVER_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
} as const

/** What one HTTP request hands the server factory: the SDK makes the server, the request decides its tools. */
export interface McpCall {
  readonly snapshot: CatalogSnapshot
  readonly view: string
  /** `?strict=true`: OpenAI strict-mode input schemas. */
  readonly strict: boolean
  /** `search`: tools/list answers the meta-tools (search, describe, call), not every tool. */
  readonly mode: McpMode
  readonly request: FastifyRequest
  /** A tools/call whose arguments were refused before the SDK saw them (they were too deep for it). */
  readonly refused?: readonly Violation[]
}

/** tools/list pages are rendered once per catalog version and view, in each schema dialect. */
const canonicalTools = memoPerOwner((catalog: Catalog, view: string) => renderMcpTools(catalog, view))
const strictTools = memoPerOwner((catalog: Catalog, view: string) =>
  renderMcpTools(catalog, view, { strict: true }),
)

/** A tools/list's tools by name (search mode's describe_tools), kept as long as the list itself. */
const namedTools = new WeakMap<readonly McpTool[], ReadonlyMap<string, McpTool>>()
function toolsByName(tools: readonly McpTool[]): ReadonlyMap<string, McpTool> {
  let named = namedTools.get(tools)
  if (!named) {
    named = new Map(tools.map((tool) => [tool.name, tool]))
    namedTools.set(tools, named)
  }
  return named
}

/**
 * What a cursor is bound to: the catalog version (a content hash, the same on every replica serving
 * the same specs), the view and the schema dialect. A cursor of another list is refused, never
 * read as an offset into this one: after a reload the offset of the old list skipped or repeated
 * tools silently (issue 42), SDK 2.x's combined listTools() included.
 */
export interface ListBinding {
  readonly version: string
  readonly view: string
  readonly strict: boolean
}

export function bindingOf(call: McpCall): ListBinding {
  return { version: call.snapshot.catalog.version, view: call.view, strict: call.strict }
}

/** An opaque cursor: the list it belongs to and the offset of the next page, held by no replica. */
export function encodeCursor(binding: ListBinding, offset: number): string {
  const { version, view, strict } = binding
  return Buffer.from(JSON.stringify({ v: version, view, strict, offset })).toString('base64url')
}

/** Characters of a refused cursor quoted back: enough to recognise it, never a stranger's megabyte. */
const QUOTED_CURSOR_CHARS = 64

/**
 * The offset a cursor of this list points at (0 without one), or a ProtocolError -32602 naming
 * the cursor. Only a cursor this gateway issues is read: it must decode to exactly the JSON
 * encodeCursor writes (so no other key, order, spacing or base64 form passes), for this catalog
 * version, view and dialect, pointing inside the list.
 */
export function decodeCursor(cursor: unknown, binding: ListBinding, count: number): number {
  if (cursor === undefined) return 0
  const refuse = (why: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, invalidCursor(cursor, why))
  const position = typeof cursor === 'string' ? readCursor(cursor) : undefined
  if (!position) throw refuse(NOT_ISSUED)
  if (position.v !== binding.version)
    throw refuse(
      'the catalog changed since this cursor was issued (the gateway reloaded its specs); list the tools again from the start, without a cursor',
    )
  if (position.view !== binding.view || position.strict !== binding.strict)
    throw refuse(
      `it belongs to another list (profile ${JSON.stringify(position.view).slice(0, 80)}${position.strict ? ', strict' : ''}); pass a cursor only to the list that issued it`,
    )
  if (position.offset <= 0 || position.offset >= count)
    throw refuse('it points outside this list; list the tools again from the start, without a cursor')
  return position.offset
}

const NOT_ISSUED = 'pass the nextCursor of a previous page, or no cursor for the first page'

/** The -32602 message for a refused cursor: the cursor quoted (its start) or its type, and why. */
export function invalidCursor(cursor: unknown, why = NOT_ISSUED): string {
  const quoted =
    typeof cursor === 'string'
      ? JSON.stringify(
          cursor.length > QUOTED_CURSOR_CHARS ? `${cursor.slice(0, QUOTED_CURSOR_CHARS)}…` : cursor,
        )
      : `of type ${cursor === null ? 'null' : Array.isArray(cursor) ? 'array' : typeof cursor}`
  return `Invalid cursor ${quoted}: ${why}`
}

interface CursorPosition {
  readonly v: string
  readonly view: string
  readonly strict: boolean
  readonly offset: number
}

/** The position a cursor encodes when it is exactly what encodeCursor writes, else undefined. */
function readCursor(cursor: string): CursorPosition | undefined {
  // base64url of JSON: a version, a view name of at most 64 characters, a flag and an offset.
  if (cursor.length === 0 || cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!isRecord(value)) return undefined
  const { v, view, strict, offset } = value
  if (typeof v !== 'string' || typeof view !== 'string' || typeof strict !== 'boolean') return undefined
  if (!Number.isSafeInteger(offset)) return undefined
  const position = { v, view, strict, offset: offset as number }
  return encodeCursor({ version: v, view, strict }, position.offset) === cursor ? position : undefined
}

/** One page of a list: the tools from the cursor's offset, and the next page's cursor if any. */
export interface ListPage {
  readonly tools: McpTool[]
  readonly nextCursor?: string
}

export function listPage(
  tools: readonly McpTool[],
  binding: ListBinding,
  offset: number,
  paging: McpPaging,
): ListPage {
  const size = pageSizeFor(tools.length, paging)
  const page = tools.slice(offset, offset + size)
  return offset + size < tools.length
    ? { tools: page, nextCursor: encodeCursor(binding, offset + size) }
    : { tools: page }
}

export type CallTool = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<McpCallResult>

/** What a request sees and calls: its caller's catalog, the view's tools as listed, a tool caller. */
export interface McpScope {
  readonly visible: Catalog
  readonly tools: readonly McpTool[]
  readonly byName: ReadonlyMap<string, McpTool>
  /**
   * A call by name, as tools/call answers it: the result (upstream failures and invalid arguments
   * are isError results), or a ProtocolError for a tool this caller may not call or cannot see.
   */
  readonly callTool: CallTool
}

export function mcpScope(fastify: FastifyInstance, call: McpCall): McpScope {
  const { snapshot, view, strict, mode, request, refused: early } = call
  const visible = fastify.access.catalogFor(request.caller, snapshot.catalog)
  const tools = (strict ? strictTools : canonicalTools)(visible, view)
  const byName = toolsByName(tools)
  const client = callerName(request.caller)
  const callTool: CallTool = async (name, args, signal) => {
    const tool = snapshot.findTool(name)
    const refused =
      tool &&
      fastify.access.refusal(request.caller, snapshot.catalog, tool, request.headers['x-toolgate-approval'])
    if (refused) {
      fastify.gatewayMetrics.accessRefused(client, 'not_allowed')
      request.log.info({ tool: tool!.id, client, code: refused.code, via: 'mcp' }, 'tool call refused')
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused.message)
    }
    if (!tool || !byName.has(tool.wireName)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        mode === 'search'
          ? `Unknown tool: ${name.slice(0, 200)}. search_tools finds the tools of this endpoint.`
          : `Unknown tool: ${name.slice(0, 200)}. tools/list names the tools of this endpoint.`,
      )
    }
    if (early) return renderCallResult(invalidArguments(tool, early), tool.wireName)
    const approval = request.headers['x-toolgate-approval']
    fastify.gatewayMetrics.toolCalled(client, 'mcp')
    const outcome = await fastify.executor.execute(
      {
        tool,
        arguments: args,
        signal,
        requestId: request.id,
        client,
        clientId: request.caller?.kind === 'client' ? request.caller.client.id : undefined,
        callerJwt: request.caller?.kind === 'client' ? request.caller.jwt : undefined,
        ...(typeof approval === 'string' ? { approval } : {}),
      },
      { service: snapshot.serviceOf(tool), validator: snapshot.validator },
    )
    if (logsInfo(request.log))
      request.log.info({ tool: tool.id, status: outcome.status, client, via: 'mcp' }, 'tool call')
    const result = renderCallResult(outcome, tool.wireName)
    const mismatch = outputMismatch(tool, result, snapshot)
    if (!mismatch) return result
    fastify.gatewayMetrics.outputMismatch(tool.serviceId)
    request.log.info(
      { tool: tool.id, pointer: mismatch.path, problem: mismatch.message, client, via: 'mcp' },
      'tool answer does not match its output schema; passed on as text, its matching part as structuredContent',
    )
    const conformed =
      result.structuredContent === undefined
        ? undefined
        : snapshot.outputValidator.conformingPart(tool, result.structuredContent)
    return conformResult(result, conformed, mismatch)
  }
  return { visible, tools, byName, callTool }
}

/**
 * How a success answer breaks the output schema the tool advertised, or undefined. An answer that
 * is no JSON object (empty, text, an array) has no structuredContent, which clients holding an
 * output schema refuse: a mismatch too (docs/catalog.md "Typed results").
 */
function outputMismatch(tool: Tool, result: McpCallResult, snapshot: CatalogSnapshot): Violation | undefined {
  if (result.isError || !('schema' in tool.structuredOutput)) return undefined
  if (result.structuredContent === undefined) return { path: '/', message: 'is not a JSON object' }
  return snapshot.outputValidator.check(tool, result.structuredContent)
}
