import { AsyncLocalStorage } from 'node:async_hooks'
import { toNodeHandler } from '@modelcontextprotocol/node'
import {
  createMcpHandler,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DISCOVER_VIEW } from '../src/catalog/build-views.js'
import {
  checkArgumentValues,
  DEFAULT_ARGUMENT_DEPTH,
  nestsDeeperThan,
  type Violation,
} from '../src/executor/index.js'
import { renderMcpContext } from '../src/formats/index.js'
import { withMetaContext } from '../src/tracing/mcp-context.js'
import { tagMcpSpan } from '../src/tracing/mcp-span.js'
import { isRecord } from '../src/util/is-record.js'
import { memoPerOwner } from '../src/util/memo.js'
import {
  bindingOf,
  DEFAULT_MCP_MAX_PAGES,
  DEFAULT_MCP_PAGE_SIZE,
  decodeCursor,
  invalidCursor,
  listPage,
  type McpCall,
  type McpPaging,
  mcpScope,
  SERVER_CAPABILITIES,
  SERVER_INFO,
} from './mcp-calls.js'
import { createFastPath, fastRequest } from './mcp-fast.js'
import {
  CALL_TOOL,
  callMetaTool,
  isMetaTool,
  MCP_MODES,
  type McpMode,
  META_TOOLS,
  oneLine,
  STRICT_META_TOOLS,
} from './mcp-search.js'
import { acceptIn } from './search.js'

export { DEFAULT_MCP_MAX_PAGES, DEFAULT_MCP_PAGE_SIZE, pageSizeFor } from './mcp-calls.js'

/**
 * 2026-07-28 cache hints (`ttlMs`, `cacheScope` on the cacheable results): lists and reads may be
 * kept a minute. A reload is seen by a caching client within that minute; tools stay callable by
 * name meanwhile, and a removed one answers "Unknown tool".
 */
export const MCP_CACHE_TTL_MS = 60_000
const CACHEABLE_METHODS = [
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'server/discover',
] as const
type CacheHints = NonNullable<ConstructorParameters<typeof Server>[1]>['cacheHints']

/** Shared caches may keep what does not depend on the caller: everything, while access is open. */
function cacheHintFor(mode: 'open' | 'clients' | 'closed') {
  return { ttlMs: MCP_CACHE_TTL_MS, cacheScope: mode === 'open' ? 'public' : 'private' } as const
}

interface McpRoute {
  Querystring: { profile?: string; strict?: string; mode?: string }
  Body: string
}

export interface McpOptions {
  /** Tests only: every request goes through the SDK, the fast path's reference (mcp-fast.test.ts). */
  readonly sdkOnly?: boolean
}

/** Resources and prompts are rendered once per catalog version and view (access-filtered catalogs included). */
const contextOf = memoPerOwner(renderMcpContext)

/** The JSON-RPC envelope around the arguments: `{ params: { arguments: … } }` and a little `_meta`. */
const ENVELOPE_DEPTH = 8

/**
 * MCP over Streamable HTTP (SPEC §2) on the official SDK 2.x: `createMcpHandler` serves the
 * 2026-07-28 revision (stateless: `server/discover`, no handshake), a stateless transport per
 * request every 2025 revision; each request gets a fresh Server from the factory, so no session
 * lives in one replica's memory. The 2026-07-28 happy path of server/discover, tools/list and
 * tools/call is answered without one, the same bytes (mcp-fast.ts). Resources (the view's services) and prompts (its workflows) are
 * read-only. `?profile=` picks a view; `?strict=true` serves OpenAI
 * strict-mode input schemas.
 */
export default async function mcp(fastify: FastifyInstance, options: McpOptions = {}) {
  // The raw text, so that malformed JSON gets a JSON-RPC parse error rather than Fastify's.
  fastify.removeContentTypeParser('application/json')
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  )
  const argumentDepth = fastify.config.file.limits?.argumentDepth ?? DEFAULT_ARGUMENT_DEPTH
  const paging: McpPaging = {
    pageSize: fastify.config.file.mcp?.pageSize ?? DEFAULT_MCP_PAGE_SIZE,
    maxPages: fastify.config.file.mcp?.maxPages ?? DEFAULT_MCP_MAX_PAGES,
  }
  const cacheHint = cacheHintFor(fastify.access.config.mode)
  const cacheHints: CacheHints = Object.fromEntries(CACHEABLE_METHODS.map((method) => [method, cacheHint]))
  const calls = new AsyncLocalStorage<McpCall>()
  const answerFast = createFastPath(fastify, cacheHint, paging)
  const serverForThisRequest = () => {
    const call = calls.getStore()
    if (!call) throw new Error('an MCP server was asked for outside a request')
    return createServer(fastify, call, cacheHints, paging)
  }
  // 2026-07-28 traffic: the SDK's per-request entry (server/discover, envelope, version errors).
  const modern = createMcpHandler(serverForThisRequest, {
    legacy: 'reject',
    onerror: (err) => fastify.log.debug({ err }, 'MCP request refused'),
  })
  // 2025-era traffic, stateless, answered as JSON rather than a one-event stream (the SDK's own
  // legacy leg streams): the routing isLegacyRequest documents for a custom legacy wiring.
  const legacy = async (request: Request, options?: McpHandlerRequestOptions) => {
    const server = serverForThisRequest()
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request, options)
    } finally {
      void transport.close()
      void server.close()
    }
  }
  const serve = toNodeHandler(
    {
      fetch: async (request, options) =>
        (await isLegacyRequest(request, options?.parsedBody))
          ? legacy(request, options)
          : modern.fetch(request, options),
    },
    { onerror: (err: unknown) => fastify.log.error({ err }, 'MCP handler failed') },
  )
  fastify.addHook('onClose', async () => modern.close())

  /** The SDK writes the response itself: it gets the headers hooks already set (CORS, versions). */
  const viaSdk = async (request: FastifyRequest, reply: FastifyReply, message: unknown, call: McpCall) => {
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value)
    reply.hijack()
    await calls.run(call, () => serve(request.raw, reply.raw, message))
  }

  /**
   * A 2025-03-26 batch, through the SDK's legacy transport as a fetch call rather than onto the
   * socket: it answers a batch of one request with a bare object, and JSON-RPC 2.0 answers every
   * batch with an array (a client matching answers to its batch expects one).
   */
  const viaSdkBatch = async (
    request: FastifyRequest,
    reply: FastifyReply,
    batch: unknown[],
    call: McpCall,
  ) => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
    const web = new Request(new URL(request.url, 'http://gateway'), {
      method: 'POST',
      headers,
      body: JSON.stringify(batch),
    })
    const response = await calls.run(call, () => legacy(web, { parsedBody: batch }))
    const text = await response.text()
    reply.code(response.status)
    const type = response.headers.get('content-type')
    if (type) reply.type(type)
    if (response.status !== 200 || text === '') return reply.send(text === '' ? undefined : text)
    const answer: unknown = JSON.parse(text)
    return reply.send(Array.isArray(answer) ? answer : [answer])
  }

  // Not async: a list or server/discover on the fast path is answered within the call, with no
  // promise per request (issue 20); a tool call and the SDK return theirs. Every other answer is
  // sent here, and the handler returns nothing, as Fastify's synchronous handlers do.
  fastify.post<McpRoute>('/mcp', { config: { access: 'mcp' } }, (request, reply) => {
    let message: unknown
    try {
      message = JSON.parse(request.body ?? '')
    } catch (err) {
      reply.code(400).send(rpcError(ProtocolErrorCode.ParseError, `Parse error: ${(err as Error).message}`))
      return
    }
    const invalid = Array.isArray(message)
      ? invalidBatch(message, request.headers['mcp-protocol-version'], argumentDepth)
      : invalidEnvelope(message)
    if (invalid) {
      reply.code(400).send(rpcError(ProtocolErrorCode.InvalidRequest, `Invalid Request: ${invalid}`))
      return
    }
    if (fastify.tracingEnabled) tagMcpSpan(request.opentelemetry().span, message, request.headers)
    if (request.rateLimited) {
      if (Array.isArray(message)) answerBatchRateLimited(reply, message, request.rateLimited)
      else answerRateLimited(reply, message as JsonRpcRequest, request.rateLimited)
      return
    }
    // The SDK's schema refuses a cursor that is no string as an internal error (-32603) quoting
    // its validator's dump: answered here as the invalid parameter it is (issue 42).
    const cursor = listCursor(message as McpMessage)
    const { id } = message as JsonRpcRequest
    if (cursor !== undefined && typeof cursor !== 'string' && id !== undefined) {
      reply.send(rpcError(ProtocolErrorCode.InvalidParams, invalidCursor(cursor), id))
      return
    }
    // Arguments are checked at the edge as on every surface, here before the SDK parses them: its
    // message validation recurses, and deep enough arguments overflowed it into -32603. The SDK
    // then sees `{}` and the tool's handler answers the refusal as an isError result.
    const refused = refuseArgumentsEarly(message as McpMessage, argumentDepth)
    if (nestsDeeperThan(message, argumentDepth + ENVELOPE_DEPTH)) {
      reply
        .code(400)
        .send(
          rpcError(
            ProtocolErrorCode.InvalidRequest,
            `Invalid Request: the message nests deeper than ${argumentDepth + ENVELOPE_DEPTH} levels`,
            (message as JsonRpcRequest).id ?? null,
          ),
        )
      return
    }
    const snapshot = fastify.catalogStore.current()
    const view = request.query.profile ?? DISCOVER_VIEW
    if (!snapshot.catalog.views[view]) {
      const views = Object.keys(snapshot.catalog.views).join(', ')
      reply
        .code(400)
        .send(rpcError(ProtocolErrorCode.InvalidParams, `Unknown profile ${view}: use one of ${views}`))
      return
    }
    const mode = request.query.mode ?? fastify.config.file.profiles?.[view]?.mcpMode ?? 'list'
    if (!(MCP_MODES as readonly string[]).includes(mode)) {
      reply
        .code(400)
        .send(
          rpcError(
            ProtocolErrorCode.InvalidParams,
            `Unknown mode ${String(mode).slice(0, 64)}: use one of ${MCP_MODES.join(', ')}`,
          ),
        )
      return
    }
    const call: McpCall = {
      snapshot,
      view,
      strict: request.query.strict === 'true',
      mode: mode as McpMode,
      request,
      ...(refused ? { refused } : {}),
    }
    if (Array.isArray(message)) return viaSdkBatch(request, reply, message, call)
    const fast = options.sdkOnly ? undefined : fastRequest(message, request.headers, call.mode)
    if (fast) {
      // Lists are answered at once (true, or false for a cursor it does not know), a tool call
      // through a promise (always true).
      const answered = answerFast(reply, fast, call)
      if (answered === true) return
      if (answered !== false)
        return answered.then((done) => (done ? undefined : viaSdk(request, reply, message, call)))
    }
    return viaSdk(request, reply, message, call)
  })

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(405)
      .header('Allow', 'POST')
      .send(
        rpcError(
          CONNECTION_CLOSED,
          'Method not allowed: this MCP endpoint is stateless and answers POST only',
        ),
      )
  fastify.get('/mcp', notAllowed)
  fastify.delete('/mcp', notAllowed)
}

/**
 * JSON-RPC 2.0: valid JSON that is not a request, notification or response is an Invalid Request
 * (-32600); the SDK would call it a parse error.
 */
function invalidEnvelope(message: unknown): string | undefined {
  if (Array.isArray(message)) return 'a batch may not hold a batch'
  if (message === null || typeof message !== 'object') return 'the body must be a JSON-RPC 2.0 object'
  const { jsonrpc, method, id } = message as Record<string, unknown>
  if (jsonrpc !== '2.0') return 'jsonrpc must be "2.0"'
  if ('id' in message && (id === null || (typeof id !== 'string' && typeof id !== 'number')))
    return 'id must be a string or a number'
  const isResponse = 'result' in message || 'error' in message
  if (typeof method !== 'string' && !isResponse) return 'a request needs a method'
  return undefined
}

/**
 * Revisions whose clients may send JSON-RPC batches: 2025-03-26 says a server MUST accept them
 * (and 2024-11-05 allowed them); 2025-06-18 removed them (issue 42). Their clients send no
 * MCP-Protocol-Version header (it came with 2025-06-18), and a server that gets none assumes
 * 2025-03-26 (2025-06-18, "Protocol Version Header"): so a batch is read when the header is
 * absent or names one of these, and refused when it names a later revision.
 */
export const BATCH_REVISIONS: readonly string[] = ['2025-03-26', '2024-11-05']
/** The SDK's own bound (MAX_BATCH_SIZE): said here first, with the revision rule. */
export const MCP_MAX_BATCH = 100

function invalidBatch(
  batch: readonly unknown[],
  version: unknown,
  argumentDepth: number,
): string | undefined {
  if (version !== undefined && !BATCH_REVISIONS.includes(String(version)))
    return `batches are not supported on MCP ${String(version).slice(0, 32)} (2025-06-18 removed them); send one message per request, or use 2025-03-26`
  if (batch.length === 0) return 'an empty batch'
  if (batch.length > MCP_MAX_BATCH) return `a batch holds at most ${MCP_MAX_BATCH} messages`
  for (const [index, message] of batch.entries()) {
    const invalid = invalidEnvelope(message)
    if (invalid) return `batch message ${index}: ${invalid}`
    if (isRecord(message) && message.method === 'initialize')
      return `batch message ${index}: initialize may not be part of a batch (MCP 2025-03-26)`
    // One refusal per request (McpCall.refused) cannot say which call of a batch it was for: a
    // batch whose arguments the edge refuses is refused whole, naming the message.
    const refused = refuseArgumentsEarly(message as McpMessage, argumentDepth)
    if (refused)
      return `batch message ${index}: the arguments are refused: ${refused
        .slice(0, 3)
        .map((violation) => `${violation.path} ${violation.message}`)
        .join('; ')}`
  }
  return undefined
}

function rpcError(code: number, message: string, id: string | number | null = null) {
  return { jsonrpc: '2.0', id, error: { code, message } }
}

interface McpMessage {
  readonly method?: unknown
  readonly params?: { name?: unknown; arguments?: unknown; cursor?: unknown }
}

/** The `cursor` of a list request (tools, resources, templates, prompts), as sent; else undefined. */
function listCursor(message: McpMessage): unknown {
  if (typeof message.method !== 'string' || !message.method.endsWith('/list') || !isRecord(message.params))
    return undefined
  return message.params.cursor
}

/** A tools/call's argument violations (its arguments then replaced by `{}`), or undefined. */
function refuseArgumentsEarly(message: McpMessage, depth: number): readonly Violation[] | undefined {
  if (message.method !== 'tools/call' || !isRecord(message.params) || message.params.arguments === undefined)
    return undefined
  // call_tool (search mode): the called tool's arguments are one level down; the name stays.
  const outer = message.params.arguments
  const inner = message.params.name === CALL_TOOL && isRecord(outer) && outer.arguments !== undefined
  const violations = checkArgumentValues(inner ? outer.arguments : outer, depth)
  if (violations.length === 0) return undefined
  if (inner) outer.arguments = {}
  else message.params.arguments = {}
  return violations
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

/** A batch over its budget: a 429, each request's error in the batch answer (none for notifications). */
function answerBatchRateLimited(reply: FastifyReply, batch: readonly unknown[], error: { message: string }) {
  const answers = (batch as JsonRpcRequest[])
    .filter((message) => message.id !== undefined && message.method !== undefined)
    .map((message) => rpcError(RATE_LIMITED, error.message, message.id))
  return answers.length === 0 ? reply.code(429).send() : reply.code(429).send(answers)
}

/** Server error codes of the JSON-RPC implementation-defined range (-32000 to -32099). */
const RATE_LIMITED = -32029
/** What SDK 1.x called ConnectionClosed, kept for the 405 on GET and DELETE. */
const CONNECTION_CLOSED = -32000

function createServer(
  fastify: FastifyInstance,
  call: McpCall,
  cacheHints: CacheHints,
  paging: McpPaging,
): Server {
  const { snapshot, view, mode } = call
  const server = new Server({ ...SERVER_INFO }, { capabilities: SERVER_CAPABILITIES, cacheHints })
  const { visible, tools, byName, callTool } = mcpScope(fastify, call)
  const context = contextOf(visible, view)
  server.setRequestHandler('resources/list', async () => ({ resources: [...context.resources] }))
  server.setRequestHandler('resources/read', async ({ params }) => {
    const text = context.read(params.uri)
    if (text === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown resource: ${params.uri.slice(0, 200)}. resources/list names the resources of this endpoint.`,
      )
    return { contents: [{ uri: params.uri, mimeType: 'application/json', text }] }
  })
  server.setRequestHandler('prompts/list', async () => ({ prompts: [...context.prompts] }))
  server.setRequestHandler('prompts/get', async ({ params }) => {
    const prompt = context.prompt(params.name)
    if (!prompt)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt: ${params.name.slice(0, 200)}. prompts/list names the prompts of this endpoint.`,
      )
    return { description: prompt.description, messages: prompt.messages.map((m) => ({ ...m })) }
  })
  server.setRequestHandler('tools/list', async ({ params }) => {
    if (mode === 'search') return { tools: [...(call.strict ? STRICT_META_TOOLS : META_TOOLS)] }
    const binding = bindingOf(call)
    return { ...listPage(tools, binding, decodeCursor(params?.cursor, binding, tools.length), paging) }
  })
  const accept = acceptIn(visible, view)
  // A trace context in `_meta` is the parent of what the call does (tracing on; else a no-op).
  server.setRequestHandler('tools/call', async ({ params }, ctx) =>
    withMetaContext(params._meta, () => {
      if (mode !== 'search' || !isMetaTool(params.name))
        return callTool(params.name, params.arguments ?? {}, ctx.mcpReq.signal)
      return callMetaTool(params.name, params.arguments, {
        search: async (query, limit) =>
          (await fastify.toolRanker.rank(snapshot.search, snapshot.catalog, query, { limit, accept })).map(
            ({ tool, score, confidence }) => {
              const definition = byName.get(tool.wireName)
              return {
                name: tool.wireName,
                title: tool.title,
                description: oneLine(definition?.description ?? tool.description),
                required: (definition?.inputSchema.required as string[] | undefined) ?? [],
                score: Math.round(score * 1000) / 1000,
                confidence,
              }
            },
          ),
        definition: (name) => byName.get(name),
        // A refusal or an unknown name is the called tool's error result here, not the meta-tool's protocol error.
        call: (name, args) =>
          callTool(name, args, ctx.mcpReq.signal).catch((err: unknown) => {
            if (!(err instanceof ProtocolError)) throw err
            return { content: [{ type: 'text' as const, text: err.message }], isError: true }
          }),
      })
    }),
  )
  return server
}
