import type { OperationExtensions } from './extensions.js'
import type { HttpMethod, Safety } from './types.js'

/**
 * Seed 003's defaults — GET read-only and idempotent, DELETE destructive and idempotent, PUT
 * idempotent, approval off — then x-cli-safety, then x-openai-isConsequential: true, which means
 * approval (OpenAI GPT Actions: confirm every run).
 */
export function deriveSafety(method: HttpMethod, extensions: OperationExtensions): Safety {
  const safety = {
    readOnly: method === 'get',
    destructive: method === 'delete',
    idempotent: method === 'get' || method === 'put' || method === 'delete',
    openWorld: true,
    requiresApproval: false,
    ...extensions.safety,
  }
  if (extensions.consequential === true) safety.requiresApproval = true
  return safety
}
