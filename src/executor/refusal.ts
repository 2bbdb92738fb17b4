import type { Tool } from '../catalog/types.js'
import type { Refusal } from './types.js'

/** A gateway error as a tool call's refusal: its message, code and status, the tool's name, and `details`. */
export function refusal(
  error: { message: string; code: string; statusCode?: number },
  tool: Tool,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Refusal {
  return {
    kind: 'refusal',
    status: error.statusCode ?? 500,
    body: { error: error.message, code: error.code, tool: tool.wireName, ...details },
    headers,
  }
}
