/**
 * Who may call what (issue 13, SPEC §8). The configuration is resolved once at boot into these
 * values; tokens are kept only as SHA-256 digests.
 */

/** A request budget: `max` requests per `windowMs`. */
export interface RateLimit {
  readonly max: number
  readonly windowMs: number
}

/** How a client proves itself: a static bearer token, or JWT access tokens from an OIDC issuer. */
export type ClientProof =
  | { readonly kind: 'token'; readonly sha256: Buffer }
  | { readonly kind: 'jwt'; readonly jwt: JwtProof }

export interface JwtProof {
  readonly issuer: string
  /** Unset: `jwks_uri` of the issuer's OpenID configuration. */
  readonly jwksUrl?: string
  readonly audience: readonly string[]
  readonly algorithms: readonly string[]
  readonly clockToleranceSeconds: number
  /** A token with a key id the cached set lacks refetches it at most once per this. */
  readonly keysCooldownSeconds: number
  /** The claim that names the client, and the value that names this one. */
  readonly claim: string
  readonly value: string
  /** Scopes every token must carry (`scope` or `scp`). */
  readonly scopes: readonly string[]
}

export interface Client {
  readonly id: string
  readonly proof: ClientProof
  /** Views whose tools it may call; unset: every tool the gateway can call. */
  readonly profiles?: readonly string[]
  /** Tool ID or wire-name globs it may call. */
  readonly tools: readonly string[]
  /** Globs of tools needing approval that this client may approve (X-Toolgate-Approval). */
  readonly approve: readonly string[]
  /** Unset: no limit. */
  readonly rateLimit?: RateLimit
  /** May read /catalog and /catalog/reloads. */
  readonly operator: boolean
  /** May create sessions. */
  readonly sessions: boolean
}

/**
 * - `open`: no clients and not production, or `access: open` — anyone may call (said loudly).
 * - `clients`: only the configured clients may call tools, MCP and the operator routes.
 * - `closed`: production without clients — calls, MCP and the operator routes are refused.
 */
export type AccessMode = 'open' | 'clients' | 'closed'

export interface AccessConfig {
  readonly mode: AccessMode
  readonly clients: readonly Client[]
  /** The gateway's canonical URL, no trailing slash: the JWT audience and the MCP resource. */
  readonly publicUrl?: string
  /** Browser origins allowed besides the gateway's own and localhost; `'*'` switches the check off. */
  readonly allowedOrigins: readonly string[] | '*'
  /** Per address, for anonymous callers; unset: no limit. */
  readonly anonymousRateLimit?: RateLimit
  /** Failed authentications per address (IPv6: per /64), before a token is judged; unset: no limit. */
  readonly failedAuthenticationLimit?: RateLimit
}

/** The caller of one request: a client that proved itself, or anonymous. */
export type Caller =
  | { readonly kind: 'anonymous'; readonly address: string }
  | {
      readonly kind: 'client'
      readonly client: Client
      readonly scopes?: readonly string[]
      /** The verified JWT itself, when the client proved itself with one: what token exchange trades (issue 45). */
      readonly jwt?: string
    }

/** Why a request was refused; these are the `reason` label of toolgate_access_refusals_total. */
export type RefusalReason =
  | 'no_token'
  | 'bad_token'
  /** The issuer's keys could not be fetched: the token was refused without being judged. */
  | 'keys_unavailable'
  | 'not_allowed'
  | 'rate_limited'
  | 'origin'
  /** Production without clients: calls, MCP and the operator routes are closed. */
  | 'closed'
