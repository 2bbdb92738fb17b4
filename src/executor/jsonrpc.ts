import { randomUUID } from 'node:crypto'
import type { Tool } from '../catalog/types.js'
import { errors } from '../errors.js'
import { isRecord } from '../util/is-record.js'
import { redactSecrets } from '../util/redact-secrets.js'
import type { UpstreamRequest } from './build-request.js'
import type { ToolOutcome } from './types.js'
import type { RawResponse } from './upstream-client.js'

/** jsonrpc_mcp tools are called with a JSON-RPC 2.0 request whose method is the tool name (protocols.md §3). */
export function asJsonRpcRequest(request: UpstreamRequest, method: string): UpstreamRequest {
  const params = typeof request.body === 'string' && request.body !== '' ? JSON.parse(request.body) : {}
  const body = JSON.stringify({ jsonrpc: '2.0', method, params, id: randomUUID() })
  return { ...request, headers: { ...request.headers, 'content-type': 'application/json' }, body }
}

/**
 * A jsonrpc_mcp answer as a tool outcome: `result` is the tool's answer; 401/403 (empty body,
 * `WWW-Authenticate`) and JSON-RPC errors become clear refusals naming the tool and what to do.
 */
export function fromJsonRpcResponse(
  response: RawResponse,
  tool: Tool,
  request: UpstreamRequest,
): ToolOutcome | undefined {
  const { origin } = request
  const redact = (text: string) => withoutSentSecrets(text, request)
  if (response.status === 401 || response.status === 403) {
    const challenge = redact(String(response.headers['www-authenticate'] ?? ''))
    const reason =
      /error_description="([^"]+)"/.exec(challenge)?.[1] ??
      /error="([^"]+)"/.exec(challenge)?.[1] ??
      'no reason given'
    const scope = /scope="([^"]+)"/.exec(challenge)?.[1]
    const error = new errors.remoteAuthFailed(
      tool.wireName,
      `${reason}${scope ? ` (needs scope ${scope})` : ''}`,
    )
    return refusal(response.status, error, tool, { upstream: origin })
  }
  let message: unknown
  try {
    message = JSON.parse(response.bytes.toString('utf8'))
  } catch {
    return undefined
  }
  if (!isRecord(message)) return undefined
  if ('result' in message) {
    return {
      kind: 'answer',
      status: 200,
      body: {
        type: 'json',
        bytes: Buffer.from(JSON.stringify(message.result ?? null)),
        contentType: 'application/json',
      },
      headers: {},
      origin,
      attempts: response.attempts,
    }
  }
  if (!isRecord(message.error)) return undefined
  const code = Number(message.error.code)
  const text = redact(String(message.error.message ?? 'error'))
  if (code === -32601)
    return refusal(404, new errors.remoteMethodNotFound(tool.wireName, text), tool, { upstream: origin })
  if (code === -32602 || code === -32600) {
    return refusal(400, new errors.toolArgumentsInvalid(tool.wireName), tool, {
      upstream: origin,
      violations: [{ path: '/', message: text }],
    })
  }
  return refusal(502, new errors.remoteError(tool.wireName, code, text), tool, {
    upstream: origin,
    data: withoutSentSecretsIn(message.error.data, request),
  })
}

function refusal(
  status: number,
  error: { message: string; code: string },
  tool: Tool,
  details: Record<string, unknown>,
): ToolOutcome {
  return {
    kind: 'refusal',
    status,
    body: { error: error.message, code: error.code, tool: tool.wireName, ...details },
    headers: {},
  }
}

/** Headers the gateway sets that hold no secret; every other one sent may be a credential. */
const PLAIN_HEADERS = new Set(['accept', 'content-type', 'user-agent', 'x-request-id'])

/**
 * `text` from a remote source with every secret the gateway sent it replaced by [redacted] (issue
 * 41 class 3): a source that echoes its token into an error message or a challenge must not make
 * the token the caller's problem text. A bearer or basic value is redacted whole and by its token.
 */
export function withoutSentSecrets(text: string, request: UpstreamRequest): string {
  const secrets: string[] = []
  for (const [name, value] of Object.entries(request.headers)) {
    if (PLAIN_HEADERS.has(name.toLowerCase())) continue
    const token = /^(?:bearer|basic)\s+(.+)$/i.exec(value)?.[1]
    secrets.push(value, ...(token === undefined ? [] : [token]))
  }
  return redactSecrets(text, secrets, 4)
}

/** A JSON value from a remote source, its sent secrets redacted; undefined if redacting broke it. */
function withoutSentSecretsIn(value: unknown, request: UpstreamRequest): unknown {
  if (value === undefined) return undefined
  try {
    return JSON.parse(withoutSentSecrets(JSON.stringify(value), request))
  } catch {
    return undefined
  }
}
