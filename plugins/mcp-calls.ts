import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Catalog, Tool } from '../src/catalog/index.js'
import { type CallSignal, invalidArguments, type Violation } from '../src/executor/index.js'
import {
  conformResult,
  type McpCallResult,
  type McpTool,
  renderCallResult,
  renderMcpTools,
} from '../src/formats/index.js'
import type { CatalogSnapshot } from '../src/store/index.js'
import { logsInfo } from '../src/util/log-level.js'
import { memoPerOwner } from '../src/util/memo.js'
import { PACKAGE_VERSION } from '../src/version.js'
import { callerName } from './access.js'
import type { McpMode } from './mcp-search.js'

// What one MCP request sees (its caller's catalog, the view's tools in its dialect) and how it
// calls a tool: shared by the SDK's server and the 2026-07-28 fast path (mcp-fast.ts).

export const MCP_PAGE_SIZE = 100
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

/** An opaque cursor: the offset of the next page, bound to nothing a replica holds in memory. */
export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url')
}

export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset: unknown }
    if (Number.isInteger(offset) && (offset as number) >= 0) return offset as number
  } catch {}
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of a previous page`,
  )
}

export type CallTool = (
  name: string,
  args: Record<string, unknown>,
  signal: CallSignal,
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
