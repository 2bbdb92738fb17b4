import type { IncomingHttpHeaders } from 'node:http'
import type { Span } from '@opentelemetry/api'

/** Attribute values we copy from a request are cut: a client's strings are not ours to store whole. */
const MAX_CHARS = 200

/**
 * The MCP conventions on the server span of a JSON-RPC message: named `{mcp.method.name} {target}`,
 * with `mcp.method.name`, `mcp.protocol.version`, `jsonrpc.request.id` and, for a tool call,
 * `gen_ai.tool.name`. `mcp.session.id` is left out: the session ID is a bearer of the session.
 * A batch is named for its first message.
 */
export function tagMcpSpan(
  span: Span | undefined | null,
  message: unknown,
  headers: IncomingHttpHeaders,
): void {
  const first = Array.isArray(message) ? message[0] : message
  if (!span || typeof first !== 'object' || first === null) return
  const { method, id, params } = first as { method?: unknown; id?: unknown; params?: { name?: unknown } }
  if (typeof method !== 'string') return
  const name = method.slice(0, MAX_CHARS)
  span.setAttribute('mcp.method.name', name)
  span.setAttribute('rpc.system', 'jsonrpc')
  const version = headers['mcp-protocol-version']
  if (typeof version === 'string') span.setAttribute('mcp.protocol.version', version.slice(0, MAX_CHARS))
  if (typeof id === 'string' || typeof id === 'number')
    span.setAttribute('jsonrpc.request.id', String(id).slice(0, MAX_CHARS))
  const tool =
    method === 'tools/call' && typeof params?.name === 'string' ? params.name.slice(0, MAX_CHARS) : undefined
  if (tool !== undefined) span.setAttribute('gen_ai.tool.name', tool)
  span.updateName(tool === undefined ? name : `${name} ${tool}`)
}
