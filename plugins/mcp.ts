import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type Catalog, DISCOVER_VIEW } from '../src/catalog/index.js'
import { type McpTool, renderCallResult, renderMcpTools } from '../src/formats/index.js'
import type { CatalogSnapshot } from '../src/store/index.js'
import { PACKAGE_VERSION } from '../src/version.js'
import { callerName } from './access.js'

export const MCP_PAGE_SIZE = 100

interface McpRoute {
  Querystring: { profile?: string }
  Body: string
}

/** tools/list pages are rendered once per catalog version and view. */
const toolLists = new WeakMap<Catalog, Map<string, McpTool[]>>()

function toolsOf(catalog: Catalog, view: string): McpTool[] {
  let byView = toolLists.get(catalog)
  if (!byView) {
    byView = new Map()
    toolLists.set(catalog, byView)
  }
  let tools = byView.get(view)
  if (!tools) {
    tools = renderMcpTools(catalog, view)
    byView.set(view, tools)
  }
  return tools
}

/** An opaque cursor: the offset of the next page, bound to nothing a replica holds in memory. */
function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url')
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0
  try {
    const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset: unknown }
    if (Number.isInteger(offset) && (offset as number) >= 0) return offset as number
  } catch {}
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of a previous page`,
  )
}

/**
 * MCP over Streamable HTTP (SPEC §2), on the official SDK: one Server and one stateless transport
 * per request answering JSON — no session lives in one replica's memory. `?profile=` picks a view.
 */
export default async function mcp(fastify: FastifyInstance) {
  // The raw text, so that malformed JSON gets a JSON-RPC parse error rather than Fastify's.
  fastify.removeContentTypeParser('application/json')
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )

  fastify.post<McpRoute>('/mcp', { config: { access: 'mcp' } }, async (request, reply) => {
    let message: unknown
    try {
      message = JSON.parse(request.body ?? '')
    } catch (err) {
      return reply.code(400).send(rpcError(ErrorCode.ParseError, `Parse error: ${(err as Error).message}`))
    }
    const invalid = invalidEnvelope(message)
    if (invalid)
      return reply.code(400).send(rpcError(ErrorCode.InvalidRequest, `Invalid Request: ${invalid}`))
    if (request.rateLimited) return answerRateLimited(reply, message as JsonRpcRequest, request.rateLimited)
    const snapshot = fastify.catalogStore.current()
    const view = request.query.profile ?? DISCOVER_VIEW
    if (!snapshot.catalog.views[view]) {
      const views = Object.keys(snapshot.catalog.views).join(', ')
      return reply
        .code(400)
        .send(rpcError(ErrorCode.InvalidParams, `Unknown profile ${view}: use one of ${views}`))
    }
    const server = createServer(fastify, snapshot, view, request)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    // The transport writes the response itself: hand it the headers hooks already set (CORS, versions).
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value)
    reply.hijack()
    reply.raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    await transport.handleRequest(request.raw, reply.raw, message)
  })

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('Allow', 'POST')
      .send(
        rpcError(
          ErrorCode.ConnectionClosed,
          'Method not allowed: this MCP endpoint is stateless and answers POST only',
        ),
      )
  fastify.get('/mcp', notAllowed)
  fastify.delete('/mcp', notAllowed)
}

/**
 * JSON-RPC 2.0: valid JSON that is not a request, notification or response is an Invalid Request
 * (-32600); the SDK would call it a parse error. Batches were removed in MCP 2025-06-18.
 */
function invalidEnvelope(message: unknown): string | undefined {
  if (Array.isArray(message)) return 'batches are not supported (MCP 2025-06-18 removed them)'
  if (message === null || typeof message !== 'object') return 'the body must be a JSON-RPC 2.0 object'
  const { jsonrpc, method, id } = message as Record<string, unknown>
  if (jsonrpc !== '2.0') return 'jsonrpc must be "2.0"'
  if ('id' in message && (id === null || (typeof id !== 'string' && typeof id !== 'number')))
    return 'id must be a string or a number'
  const isResponse = 'result' in message || 'error' in message
  if (typeof method !== 'string' && !isResponse) return 'a request needs a method'
  return undefined
}

function rpcError(code: number, message: string, id: string | number | null = null) {
  return { jsonrpc: '2.0', id, error: { code, message } }
}

interface JsonRpcRequest {
  readonly id?: string | number
  readonly method?: string
}

/**
 * Over its budget: a tool call gets a tool error result the model can read (it may wait and
 * retry); any other request a 429 with a JSON-RPC error. Retry-After and RateLimit-* are set.
 */
function answerRateLimited(reply: FastifyReply, message: JsonRpcRequest, error: { message: string }) {
  if (message.id === undefined) return reply.code(429).send()
  if (message.method === 'tools/call')
    return reply.send({
      jsonrpc: '2.0',
      id: message.id,
      result: { content: [{ type: 'text', text: error.message }], isError: true },
    })
  return reply.code(429).send(rpcError(RATE_LIMITED, error.message, message.id))
}

/** A server error code of the JSON-RPC implementation-defined range (-32000 to -32099). */
const RATE_LIMITED = -32029

function createServer(
  fastify: FastifyInstance,
  snapshot: CatalogSnapshot,
  view: string,
  request: FastifyRequest,
): Server {
  const server = new Server(
    { name: 'toolgate', version: PACKAGE_VERSION },
    { capabilities: { tools: { listChanged: false } } },
  )
  const tools = toolsOf(fastify.access.catalogFor(request.caller, snapshot.catalog), view)
  const client = callerName(request.caller)
  server.setRequestHandler(ListToolsRequestSchema, async ({ params }) => {
    const offset = decodeCursor(params?.cursor)
    const page = tools.slice(offset, offset + MCP_PAGE_SIZE)
    const next =
      offset + MCP_PAGE_SIZE < tools.length ? { nextCursor: encodeCursor(offset + MCP_PAGE_SIZE) } : {}
    return { tools: page, ...next }
  })
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const tool = snapshot.findTool(params.name)
    const refused =
      tool &&
      fastify.access.refusal(request.caller, snapshot.catalog, tool, request.headers['x-toolgate-approval'])
    if (refused) {
      fastify.gatewayMetrics.accessRefused(client, 'not_allowed')
      request.log.info({ tool: tool!.id, client, code: refused.code, via: 'mcp' }, 'tool call refused')
      throw new McpError(ErrorCode.InvalidParams, refused.message)
    }
    if (!tool || !tools.some((listed) => listed.name === tool.wireName)) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${params.name}. tools/list names the tools of this endpoint.`,
      )
    }
    const approval = request.headers['x-toolgate-approval']
    fastify.gatewayMetrics.toolCalled(client, 'mcp')
    const outcome = await fastify.executor.execute(
      {
        tool,
        arguments: params.arguments ?? {},
        signal: extra.signal,
        requestId: request.id,
        ...(typeof approval === 'string' ? { approval } : {}),
      },
      { service: snapshot.serviceOf(tool), validator: snapshot.validator },
    )
    request.log.info({ tool: tool.id, status: outcome.status, client, via: 'mcp' }, 'tool call')
    return renderCallResult(outcome, tool.wireName)
  })
  return server
}
