import type { AccessConfig } from './types.js'

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * MCP's transport rule against DNS rebinding, applied to every call surface: no `Origin` (not a
 * browser) or an allowed one passes. Allowed: localhost, the gateway's own origin (`publicUrl`;
 * never the Host header, which a rebinding page controls), and `allowedOrigins`.
 */
export function isOriginAllowed(origin: string | undefined, access: AccessConfig): boolean {
  if (origin === undefined || access.allowedOrigins === '*') return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // "null" (sandboxed frames, file://) and anything else that is not an origin
  }
  if (url.origin !== origin.toLowerCase().replace(/\/$/, '')) return false
  if (LOCAL_HOSTS.has(url.hostname)) return true
  if (access.publicUrl && new URL(access.publicUrl).origin === url.origin) return true
  return access.allowedOrigins.includes(url.origin)
}
