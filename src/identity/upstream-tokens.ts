import type { Dispatcher } from 'undici'
import type { OAuthClientCredential } from '../config/secrets.js'
import { shortHash } from '../util/hash.js'
import { createTokenCache, type SharedTokenStore, type TokenCache } from './token-cache.js'
import { fetchToken, type TokenFailure, type TokenRequest } from './token-endpoint.js'

/** One token the gateway fetches for a call: whose it is, where from, for which scopes. */
export interface TokenNeed {
  readonly service: string
  readonly scheme: string
  readonly credential: OAuthClientCredential
  /** The credential's own token URL, else the scheme's `flows.clientCredentials.tokenUrl`. */
  readonly tokenUrl: string
  /** The configured scopes, else those the operation's security requirement lists. */
  readonly scopes: readonly string[]
  /** Whose credential it is: `gateway`, or the client id whose own credential it is. */
  readonly owner: string
}

/** What the metrics count: one token request to an endpoint (origin and path) and how it ended. */
export interface TokenRequestRecord {
  readonly endpoint: string
  readonly result: 'ok' | TokenFailure['failure']
}

export interface UpstreamTokensOptions {
  readonly dispatcher: Dispatcher
  readonly timeoutMs: number
  readonly now?: () => number
  readonly shared?: SharedTokenStore | undefined
  readonly observe?: (record: TokenRequestRecord) => void
}

/** A failure with the endpoint it came from, as a refusal names it (origin and path, never a query). */
export type TokenProblem = TokenFailure & { readonly endpoint: string }

/** A caller's verified JWT to trade for a token of the upstream's audience (RFC 8693). */
export interface ExchangeNeed {
  readonly service: string
  readonly client: OAuthClientCredential & { readonly tokenUrl: string }
  readonly subjectToken: string
  /** The configured scopes, else those the operation's security requirement lists. */
  readonly scopes: readonly string[]
}

export interface UpstreamTokens {
  /** The need's token: cached, or fetched once for every call waiting; `replacing` is one the upstream refused. */
  token(need: TokenNeed, replacing?: string): Promise<string | TokenProblem>
  /** The caller's token exchanged: cached per caller token, audience and scopes, in this replica only. */
  exchange(need: ExchangeNeed, replacing?: string): Promise<string | TokenProblem>
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'

/**
 * Tokens of OAuth2 client-credentials schemes (issue 45), cached per owner, service, scheme,
 * endpoint, client, audience and scopes until shortly before they expire.
 */
export function createUpstreamTokens(options: UpstreamTokensOptions): UpstreamTokens {
  const now = options.now ?? Date.now
  const cache = createTokenCache({ now, shared: options.shared })
  // Never in Redis: an exchanged token is one caller's, and lives no longer than this replica needs it.
  const exchanged = createTokenCache({ now })
  // A cached token is answered without building the request or parsing its URL: both only when fetched.
  const get = async (
    into: TokenCache,
    key: string,
    tokenUrl: string,
    request: () => TokenRequest,
    replacing: string | undefined,
  ) => {
    const answer = await into.get({
      key,
      replacing,
      fetch: async () => {
        const issued = await fetchToken(request(), options)
        options.observe?.({
          endpoint: endpointOf(tokenUrl),
          result: 'failure' in issued ? issued.failure : 'ok',
        })
        return issued
      },
    })
    return typeof answer === 'string' ? answer : { ...answer, endpoint: endpointOf(tokenUrl) }
  }
  const hashed = createKeyHasher()
  return {
    token: (need, replacing) =>
      get(cache, cacheKey(need, hashed), need.tokenUrl, () => tokenRequest(need), replacing),
    exchange: (need, replacing) =>
      get(exchanged, exchangeKey(need), need.client.tokenUrl, () => exchangeRequest(need), replacing),
  }
}

function exchangeRequest({ client, subjectToken, scopes }: ExchangeNeed): TokenRequest {
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE,
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
  }
  if (scopes.length > 0) form.scope = scopes.join(' ')
  if (client.audience) {
    form.audience = client.audience
    form.resource = client.audience
  }
  return {
    tokenUrl: client.tokenUrl,
    clientId: client.clientId.reveal(),
    clientSecret: client.clientSecret.reveal(),
    auth: client.auth,
    form,
  }
}

/** One caller token's exchange: the caller's token is hashed with the rest, never kept as a key. */
function exchangeKey({ service, client, subjectToken, scopes }: ExchangeNeed): string {
  const scopeSet = [...new Set(scopes)].sort().join(' ')
  const parts = [subjectToken, client.tokenUrl, client.clientId.reveal(), client.audience ?? '', scopeSet]
  return `exchange:${service}:${shortHash(parts.join('\n'), 64)}`
}

function tokenRequest({ credential, tokenUrl, scopes }: TokenNeed): TokenRequest {
  const form: Record<string, string> = { grant_type: 'client_credentials' }
  if (scopes.length > 0) form.scope = scopes.join(' ')
  // RFC 8707 names it resource; Auth0 and others read audience: both say the same.
  if (credential.audience) {
    form.resource = credential.audience
    form.audience = credential.audience
  }
  return {
    tokenUrl,
    clientId: credential.clientId.reveal(),
    clientSecret: credential.clientSecret.reveal(),
    auth: credential.auth,
    form,
  }
}

/** Names the token without a secret: the client id is hashed so a shared store never lists it. */
function cacheKey(
  { owner, service, scheme, tokenUrl, credential, scopes }: TokenNeed,
  hashed: KeyHasher,
): string {
  const parts = [tokenUrl, credential.clientId.reveal(), credential.audience ?? '', ...scopes]
  return `${owner}:${service}:${scheme}:${hashed(parts.join('\n'))}`
}

type KeyHasher = (material: string) => string

/** Distinct (endpoint, client, audience, scopes) are few (configuration × operations): past this many, the memo starts over. */
const MAX_HASHED_KEYS = 10_000

/**
 * The hashed part of a cache key (sha256 over the endpoint, client, audience and the sorted,
 * deduplicated scopes), computed once per distinct material: a cached token costs a map lookup,
 * not a hash, on every call (bench row 11). The material is configuration, never a secret.
 */
function createKeyHasher(): KeyHasher {
  const known = new Map<string, string>()
  return (material) => {
    let key = known.get(material)
    if (key === undefined) {
      const [tokenUrl, clientId, audience, ...scopes] = material.split('\n')
      const scopeSet = [...new Set(scopes)].sort().join(' ')
      key = shortHash([tokenUrl, clientId, audience, scopeSet].join('\n'), 32)
      if (known.size >= MAX_HASHED_KEYS) known.clear()
      known.set(material, key)
    }
    return key
  }
}

/** The token endpoint as errors and metrics name it: origin and path, no query. */
export function endpointOf(tokenUrl: string): string {
  const url = new URL(tokenUrl)
  return `${url.origin}${url.pathname}`
}
