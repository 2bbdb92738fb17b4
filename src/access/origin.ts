import { isIP } from 'node:net'
import { memoPerOwner } from '../util/memo.js'
import type { AccessConfig } from './types.js'

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * The verdicts given, per access configuration: a browser sends the same Origin on every request,
 * and judging it parses it as a URL, and `publicUrl` too (issue 20). Bounded: started over when
 * full, and an Origin longer than any real one is judged afresh each time.
 */
const verdictOf = memoPerOwner((access: AccessConfig, origin: string) => judgeOrigin(origin, access), 64)
const ORIGIN_MAX_CHARS = 256

/**
 * MCP's transport rule against DNS rebinding, applied to every call surface: no `Origin` (not a
 * browser) or an allowed one passes. Allowed: localhost, the gateway's own origin (`publicUrl`;
 * never the Host header, which a rebinding page controls), and `allowedOrigins`.
 */
export function isOriginAllowed(origin: string | undefined, access: AccessConfig): boolean {
  if (origin === undefined || access.allowedOrigins === '*') return true
  return origin.length > ORIGIN_MAX_CHARS ? judgeOrigin(origin, access) : verdictOf(access, origin)
}

/** The verdict on an Origin that is present, with `allowedOrigins` a list. */
export function judgeOrigin(origin: string, access: AccessConfig): boolean {
  const url = originUrl(origin)
  if (!url) return false
  return LOCAL_HOSTS.has(url.hostname) || isNamed(url, access)
}

/**
 * An origin the configuration names: `publicUrl`'s or one of `allowedOrigins` — localhost only if
 * listed. Open mode's operator routes answer only these cross-origin (issue 41).
 */
export function isNamedOrigin(origin: string, access: AccessConfig): boolean {
  if (origin.length > ORIGIN_MAX_CHARS) return false
  const url = originUrl(origin)
  return url !== undefined && isNamed(url, access)
}

/** The Origin as a URL, if it is one written as browsers write it; else undefined. */
function originUrl(origin: string): URL | undefined {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return undefined // "null" (sandboxed frames, file://) and anything else that is not an origin
  }
  return url.origin === origin.toLowerCase().replace(/\/$/, '') ? url : undefined
}

function isNamed(url: URL, access: AccessConfig): boolean {
  if (access.publicUrl && new URL(access.publicUrl).origin === url.origin) return true
  return Array.isArray(access.allowedOrigins) && access.allowedOrigins.includes(url.origin)
}

/**
 * Whether a request's Host is one a DNS-rebinding page cannot send (issue 41 class 10): an IP
 * literal, `localhost` or a name under it, or the host of `publicUrl` or of an `allowedOrigins`
 * entry. A page whose own domain an attacker re-points at 127.0.0.1 reaches the gateway with that
 * domain as its Host and, being same-origin there, sends no Origin on a GET: only the Host tells.
 */
export function isKnownHost(host: string | undefined, access: AccessConfig): boolean {
  if (host === undefined || host.length > ORIGIN_MAX_CHARS) return false
  const name = hostName(host)
  if (name === undefined) return false
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true
  const named = [access.publicUrl, ...(Array.isArray(access.allowedOrigins) ? access.allowedOrigins : [])]
  return named.some((url) => url !== undefined && new URL(url).hostname.replace(/^\[|\]$/g, '') === name)
}

/** The host name of a Host header (port and IPv6 brackets taken off, lower case), if it is one. */
function hostName(host: string): string | undefined {
  if (/[@/?#\\\s]/.test(host)) return undefined // userinfo, a path: no Host a browser sends
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '')
  } catch {
    return undefined
  }
}
