import type { AccessConfig } from './types.js'

/** The issuers of the JWT clients: the authorization servers a resource metadata document names. */
export function authorizationServers(access: AccessConfig): string[] {
  const issuers = access.clients.flatMap((client) =>
    client.proof.kind === 'jwt' ? [client.proof.jwt.issuer] : [],
  )
  return [...new Set(issuers)]
}

/** Every scope some JWT client's tokens must carry. */
export function requiredScopes(access: AccessConfig): string[] {
  const scopes = access.clients.flatMap((client) =>
    client.proof.kind === 'jwt' ? client.proof.jwt.scopes : [],
  )
  return [...new Set(scopes)]
}

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for `resource` (the gateway's canonical URL,
 * or `<it>/mcp` for the path-suffixed document), or undefined when no client uses an issuer.
 */
export function protectedResourceMetadata(access: AccessConfig, resource: string): object | undefined {
  const servers = authorizationServers(access)
  if (servers.length === 0) return undefined
  const scopes = requiredScopes(access)
  return {
    resource,
    authorization_servers: servers,
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'toolgate',
  }
}

export interface Challenge {
  readonly resourceMetadata?: string
  readonly scope?: readonly string[]
  /** RFC 6750 §3.1: absent when the request carried no token at all. */
  readonly error?: 'invalid_token' | 'insufficient_scope'
  readonly description?: string
}

/** A `WWW-Authenticate: Bearer …` value (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(challenge: Challenge): string {
  const params: [string, string | undefined][] = [
    ['realm', 'toolgate'],
    ['resource_metadata', challenge.resourceMetadata],
    ['scope', challenge.scope && challenge.scope.length > 0 ? challenge.scope.join(' ') : undefined],
    ['error', challenge.error],
    ['error_description', challenge.description],
  ]
  const quoted = params.flatMap(([name, value]) =>
    value === undefined ? [] : [`${name}="${quotable(value)}"`],
  )
  return `Bearer ${quoted.join(', ')}`
}

/** A quoted-string holds visible ASCII only: anything else (caller-supplied claims) becomes `?`. */
function quotable(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, '\\$&')
}
