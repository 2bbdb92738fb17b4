// MCP requests as a 2026-07-28 client sends them over Streamable HTTP, stateless (no handshake, no
// session): the headers and the JSON-RPC body the SDK 2.x client (`@modelcontextprotocol/client`,
// pinned to 2026-07-28) was seen sending, less what fetch adds by itself (user-agent,
// accept-language, sec-fetch-mode, accept-encoding). The id is fixed, so every answer has the
// same bytes.
import type { LoadRequest } from './load.js'

export const MCP_REVISION = '2026-07-28'

/** `_meta` of every 2026-07-28 request: the revision, the client and its capabilities. */
const META = {
  'io.modelcontextprotocol/protocolVersion': MCP_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'toolgate-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

/** `POST /mcp` carrying `method`; `name` is tools/call's tool, mirrored in `Mcp-Name`. */
export function mcpRequest(method: string, params: Record<string, unknown> = {}): LoadRequest {
  const name = typeof params.name === 'string' ? params.name : undefined
  return {
    method: 'POST',
    path: '/mcp',
    headers: {
      'mcp-protocol-version': MCP_REVISION,
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  }
}
