import type { AccessConfig } from './types.js'

export interface AccessSummary {
  readonly mode: AccessConfig['mode']
  readonly clients: number
  /** Said at start and in /ready while the gateway is not protected. */
  readonly warning?: string
}

/** The access mode in a few words, for the start log and `/ready` (issue 13: "says so loudly"). */
export function describeAccess(access: AccessConfig): AccessSummary {
  const clients = access.clients.length
  if (access.mode === 'open')
    return {
      mode: 'open',
      clients,
      warning:
        'access is OPEN: anyone who reaches this gateway can call every tool with the credentials it injects. Configure clients: before exposing it (docs/security.md)',
    }
  if (access.mode === 'closed')
    return {
      mode: 'closed',
      clients,
      warning:
        'access is CLOSED: no clients are configured in production, so tool calls, MCP and the operator routes answer 403. Add clients: (toolgate token new) or set access: open',
    }
  return { mode: 'clients', clients }
}
