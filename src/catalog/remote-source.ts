import { type BoundedAnswer, GetFailed, getBounded } from '../util/bounded-get.js'
import { isRecord } from '../util/is-record.js'
import { redactSecrets } from '../util/redact-secrets.js'

/** The security scheme a remote source's token is injected by (as an ordinary bearer credential). */
export const REMOTE_TOKEN_SCHEME = 'remoteToken'

/** A remote tool source (seed 004): a base URL answering `GET /mcp/tools/list`. */
export interface RemoteSourceOptions {
  readonly id: string
  readonly alias?: string
  readonly baseUrl: string
  /** `tools-list`: seed 004's shape. `jsonrpc-mcp`: Drupal's jsonrpc_mcp module (protocols.md §3). */
  readonly format: 'tools-list' | 'jsonrpc-mcp'
  /** OAuth bearer token for discovery and for calls of tools that require auth (a redacted secret). */
  readonly token?: { reveal(): string }
  /** A required source that fails stops the start (seed 004: fail fast); an optional one is reported. */
  readonly required: boolean
}

/** One remote tool, the same for both formats. */
export interface RemoteTool {
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  /** Relative to the base URL. */
  readonly endpoint: string
  readonly method: string
  readonly requiresAuth: boolean
  /** `jsonrpc`: calls are JSON-RPC 2.0 requests whose method is the tool name. */
  readonly protocol: 'http' | 'jsonrpc'
}

export interface LoadedRemote {
  readonly source: RemoteSourceOptions
  readonly tools: readonly RemoteTool[]
}

/**
 * A remote source that failed, with a message naming the source, the URL and what was wrong. The
 * message goes to the anonymous /ready: a source that echoes its token back (an error page saying
 * "invalid token …") has it replaced by [redacted].
 */
export class RemoteSourceError extends Error {
  constructor(
    source: RemoteSourceOptions,
    detail: string,
    /** The problem it is reported as in /catalog. */
    readonly code: 'remote-source-failed' | 'remote-source-too-large' = 'remote-source-failed',
  ) {
    super(
      withoutToken(
        `Tool discovery failed for remote source ${source.id} (${source.baseUrl}): ${detail}`,
        source,
      ),
    )
    this.name = 'RemoteSourceError'
  }
}

/** `text` with the source's token, in every form it may be quoted back, replaced by [redacted]. */
function withoutToken(text: string, source: RemoteSourceOptions): string {
  const token = source.token?.reveal()
  return token ? redactSecrets(text, [token]) : text
}

/** How a source is read: its answers are bounded in time (each) and in decoded bytes (all together). */
export interface RemoteReadOptions {
  readonly fetch?: typeof fetch
  /** Each request, body included (seed 004: 5 seconds, no retry). */
  readonly timeoutMs?: number
  /** Decoded bytes of all of a source's answers together (limits.remoteSourceBytes). */
  readonly maxBytes?: number
}

const DISCOVERY_TIMEOUT_MS = 5_000 // seed 004: 5-second timeout, no retry
/**
 * limits.remoteSourceBytes' default. A thousand tools with full schemas are 2–5 MB; a source is
 * parsed whole on the main thread, and the 3.2 MB of gzip that decoded to 1.66 GB showed why
 * the decoded size needs a bound (issue 41).
 */
export const DEFAULT_REMOTE_SOURCE_BYTES = 16_777_216 // 16 MiB
const MAX_PAGES = 1_000
const SEED_004_FIELDS = ['name', 'description', 'inputSchema', 'endpoint', 'method', 'requiresAuth'] as const

/** Discovers a source's tools, failing fast with a clear message (seed 004 "Error Handling Requirements"). */
export async function fetchRemoteTools(
  source: RemoteSourceOptions,
  options: RemoteReadOptions = {},
): Promise<RemoteTool[]> {
  const reader = new SourceReader(source, options)
  if (source.format === 'tools-list') {
    const body = await reader.json(`${base(source)}/mcp/tools/list`)
    const tools = toolsArray(source, body)
    return tools.map((tool, index) => validateSeed004Tool(source, tool, index))
  }
  return fetchJsonRpcMcpTools(source, reader)
}

/** jsonrpc_mcp pages by 50 with `nextCursor` (null on the last page); every page is followed. */
async function fetchJsonRpcMcpTools(source: RemoteSourceOptions, reader: SourceReader) {
  const tools: RemoteTool[] = []
  let cursor: string | null | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''
    const body = await reader.json(`${base(source)}/mcp/tools/list${query}`)
    const listed =
      page === 0 ? toolsArray(source, body) : (((body as { tools?: unknown }).tools as unknown[]) ?? [])
    const offset = tools.length
    for (const [index, tool] of listed.entries())
      tools.push(validateJsonRpcMcpTool(source, tool, offset + index))
    cursor = (body as { nextCursor?: unknown }).nextCursor as string | null | undefined
    if (typeof cursor !== 'string' || cursor === '') return tools
  }
  throw new RemoteSourceError(
    source,
    `more than ${MAX_PAGES} pages of tools; the nextCursor chain does not end`,
  )
}

function base(source: RemoteSourceOptions): string {
  return source.baseUrl.replace(/\/+$/, '')
}

/**
 * Reads a source's answers through the shared bounded reader, one byte budget for all its pages
 * (the tools of every page are held until the last). Redirects are followed, as they always were.
 */
class SourceReader {
  private readonly timeoutMs: number
  private readonly maxBytes: number
  private used = 0

  constructor(
    private readonly source: RemoteSourceOptions,
    private readonly options: RemoteReadOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DISCOVERY_TIMEOUT_MS
    this.maxBytes = options.maxBytes ?? DEFAULT_REMOTE_SOURCE_BYTES
  }

  async json(url: string): Promise<unknown> {
    const { source, timeoutMs } = this
    const headers: Record<string, string> = { accept: 'application/json' }
    if (source.token) headers.authorization = `Bearer ${source.token.reveal()}`
    let answer: BoundedAnswer
    try {
      answer = await getBounded(url, {
        timeoutMs,
        maxBytes: this.maxBytes - this.used,
        headers,
        redirect: 'follow',
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      })
    } catch (err) {
      if (err instanceof GetFailed) throw this.failed(url, err)
      throw err
    }
    this.used += answer.bytes
    if (answer.status < 200 || answer.status > 299) {
      throw new RemoteSourceError(
        source,
        `HTTP ${answer.status} ${answer.statusText} from ${url}. Check baseUrl and that /mcp/tools/list exists and allows this caller`,
      )
    }
    try {
      return JSON.parse(answer.text)
    } catch (err) {
      throw new RemoteSourceError(
        source,
        // Redacted before it is cut: a token cut in two would not be found whole afterwards.
        `invalid JSON from ${url}: ${(err as Error).message}. Response: ${withoutToken(answer.text, source).slice(0, 500)}`,
      )
    }
  }

  private failed(url: string, err: GetFailed): RemoteSourceError {
    const { source, timeoutMs, maxBytes } = this
    switch (err.reason) {
      case 'timeout':
        return new RemoteSourceError(source, `${url} did not answer within ${timeoutMs / 1000} seconds`)
      case 'too-large':
        return new RemoteSourceError(
          source,
          this.used === 0
            ? `the answer from ${url} is larger than ${maxBytes} bytes (decoded), over limits.remoteSourceBytes; it is not read`
            : `the answers up to ${url} are larger than ${maxBytes} bytes (decoded) together, over limits.remoteSourceBytes; the source is not read`,
          'remote-source-too-large',
        )
      case 'unsendable':
        return new RemoteSourceError(source, `${err.message}. Check remoteSources[].token`)
      default:
        return new RemoteSourceError(source, `cannot reach ${url}: ${err.detail}`)
    }
  }
}

function toolsArray(source: RemoteSourceOptions, body: unknown): unknown[] {
  if (!isRecord(body))
    throw new RemoteSourceError(
      source,
      `the response is not an object (got ${Array.isArray(body) ? 'an array' : typeof body})`,
    )
  if (!Array.isArray(body.tools)) {
    throw new RemoteSourceError(
      source,
      `the response has no "tools" array. Response keys: ${Object.keys(body).join(', ') || '(none)'}`,
    )
  }
  if (body.tools.length === 0)
    throw new RemoteSourceError(source, 'no tools returned: a source without tools cannot serve')
  return body.tools
}

function validateSeed004Tool(source: RemoteSourceOptions, tool: unknown, index: number): RemoteTool {
  if (!isRecord(tool)) throw new RemoteSourceError(source, `tool at index ${index} is not an object`)
  for (const field of SEED_004_FIELDS) {
    if (tool[field] === undefined || tool[field] === null) {
      throw new RemoteSourceError(
        source,
        `tool at index ${index} (${String(tool.name ?? 'unnamed')}) is missing required field "${field}"`,
      )
    }
  }
  const named = checkCommon(source, tool, index)
  if (typeof tool.endpoint !== 'string' || !tool.endpoint.startsWith('/')) {
    throw new RemoteSourceError(
      source,
      `tool ${named.name} has an invalid endpoint: must be a path starting with /`,
    )
  }
  if (typeof tool.method !== 'string' || !/^(GET|POST|PUT|PATCH|DELETE)$/i.test(tool.method)) {
    throw new RemoteSourceError(
      source,
      `tool ${named.name} has an invalid method ${JSON.stringify(tool.method)}: GET, POST, PUT, PATCH or DELETE`,
    )
  }
  if (typeof tool.requiresAuth !== 'boolean') {
    throw new RemoteSourceError(source, `tool ${named.name} has an invalid requiresAuth: must be a boolean`)
  }
  return {
    ...named,
    endpoint: tool.endpoint,
    method: tool.method.toUpperCase(),
    requiresAuth: tool.requiresAuth,
    protocol: 'http',
  }
}

function validateJsonRpcMcpTool(source: RemoteSourceOptions, tool: unknown, index: number): RemoteTool {
  if (!isRecord(tool)) throw new RemoteSourceError(source, `tool at index ${index} is not an object`)
  for (const field of ['name', 'description', 'inputSchema'] as const) {
    if (tool[field] === undefined || tool[field] === null) {
      throw new RemoteSourceError(
        source,
        `tool at index ${index} (${String(tool.name ?? 'unnamed')}) is missing required field "${field}"`,
      )
    }
  }
  const named = checkCommon(source, tool, index)
  const auth = isRecord(tool.annotations) && isRecord(tool.annotations.auth) ? tool.annotations.auth : {}
  // drupal-bridge-mcp: an explicit level wins; scopes mean required.
  const requiresAuth =
    auth.level === 'required' ||
    (auth.level === undefined && Array.isArray(auth.scopes) && auth.scopes.length > 0)
  return {
    ...named,
    ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
    endpoint: `/mcp/tools/${encodeURIComponent(named.name)}`,
    method: 'POST',
    requiresAuth,
    protocol: 'jsonrpc',
  }
}

function checkCommon(source: RemoteSourceOptions, tool: Record<string, unknown>, index: number) {
  if (typeof tool.name !== 'string' || tool.name.trim() === '') {
    throw new RemoteSourceError(
      source,
      `tool at index ${index} has an invalid name: must be a non-empty string`,
    )
  }
  if (typeof tool.description !== 'string') {
    throw new RemoteSourceError(source, `tool ${tool.name} has an invalid description: must be a string`)
  }
  if (!isRecord(tool.inputSchema)) {
    throw new RemoteSourceError(source, `tool ${tool.name} has an invalid inputSchema: must be an object`)
  }
  // PHP serializes an empty map as []: the Drupal module answers `properties: []` (protocols.md §3).
  const inputSchema = Array.isArray(tool.inputSchema.properties)
    ? { ...tool.inputSchema, properties: {} }
    : tool.inputSchema
  return { name: tool.name, description: tool.description, inputSchema }
}
