import type { JWTPayload, RemoteJWKSet } from 'jose'
import { LRUCache } from 'lru-cache'
import { fetchJson, isSecureUrl, KeysUnavailable } from './fetch-json.js'
import type { Client, JwtProof } from './types.js'

export interface JwtVerifierOptions {
  /** Bound on each JWKS or OpenID configuration fetch. */
  readonly timeoutMs?: number
  /** After a failed fetch, verifications fail at once for this long instead of fetching again. */
  readonly failureBackoffMs?: number
  /** Verified tokens remembered (each until it expires, at most `cacheTtlMs`). */
  readonly cacheSize?: number
  readonly cacheTtlMs?: number
  readonly fetch?: typeof fetch
}

export type JwtVerdict =
  | { readonly ok: true; readonly client: Client; readonly scopes: readonly string[] }
  | {
      readonly ok: false
      readonly reason: 'bad_token' | 'keys_unavailable' | 'unknown_client' | 'insufficient_scope'
      readonly message: string
      /** insufficient_scope: the scopes the client's tokens must carry. */
      readonly scopes?: readonly string[]
    }

export interface JwtVerifier {
  verify(token: string): Promise<JwtVerdict>
  /** The verdict on a token verified before and still vouched for, without any work; else undefined. */
  remembered(token: string): Extract<JwtVerdict, { ok: true }> | undefined
  /** Fetches every issuer's keys now (at boot), so the first call does not wait; failures are returned. */
  warm(): Promise<string[]>
}

const DEFAULTS = {
  timeoutMs: 5_000, // 5 s
  failureBackoffMs: 5_000, // 5 s
  cacheSize: 10_000,
  cacheTtlMs: 300_000, // 5 min: how long a key removed from the JWKS can still vouch for a token
}
/** A JWKS or OpenID configuration is a few KB; anything this big is not one. */
const MAX_DOCUMENT_BYTES = 1_048_576

/**
 * jose, imported on first use (issue 20): a gateway with no JWT client never loads it, 0.69 MB of
 * heap it would hold for nothing (used heap at rest, after full collections). Every use is async.
 */
let jose: Promise<typeof import('jose')> | undefined
const loadJose = () => (jose ??= import('jose'))

/**
 * Verifies JWT access tokens of the configured clients with `jose`: issuer, audience, algorithms,
 * expiry (with the client's clock tolerance), then the claim that names the client, then scopes.
 * Keys come from each issuer's JWKS (its URL configured or discovered), cached and rotated by jose.
 */
export function createJwtVerifier(clients: readonly Client[], options: JwtVerifierOptions = {}): JwtVerifier {
  const settings = { ...DEFAULTS, ...options }
  const jwtClients = clients.filter((c): c is Client & { proof: { kind: 'jwt' } } => c.proof.kind === 'jwt')
  if (jwtClients.length === 0) {
    // Nothing to decode a token for, so jose is never loaded, whatever a caller sends.
    const refused = bad('it is neither a configured static token nor a JWT of a configured client')
    return { verify: async () => refused, remembered: () => undefined, warm: async () => [] }
  }
  const keys = createIssuerKeys(settings)
  // Each entry carries its own deadline: lru-cache's ttl reads the clock on every get, which a
  // per-call check need not pay twice.
  // It also names the key set that vouched for it and that set's generation: once the issuer's
  // JWKS is fetched with different keys (a rotation, a removal), the entry no longer counts.
  const verified = new LRUCache<string, VerifiedToken>({ max: settings.cacheSize })

  const verifyUncached = async (token: string): Promise<JwtVerdict> => {
    const { decodeJwt } = await loadJose()
    let claims: JWTPayload
    try {
      claims = decodeJwt(token)
    } catch {
      return bad('it is neither a configured static token nor a JWT')
    }
    const candidates = jwtClients.filter((c) => c.proof.jwt.issuer === claims.iss)
    if (candidates.length === 0) return bad(`its issuer ${quote(claims.iss)} is not a configured client's`)
    const named = candidates.find((c) => claims[c.proof.jwt.claim] === c.proof.jwt.value)
    const proof = (named ?? candidates[0]!).proof.jwt
    let payload: JWTPayload
    let keySet: { readonly url: string; readonly generation: number }
    try {
      const { set, url } = await keys.of(proof)
      // Read before verifying: keys fetched during the verification make the entry stale at once.
      keySet = { url, generation: keys.generation(url) }
      payload = await verifySignedClaims(token, proof, set)
    } catch (err) {
      if (err instanceof KeysUnavailable)
        return { ok: false, reason: 'keys_unavailable', message: err.message }
      return bad((err as Error).message)
    }
    if (!named) {
      const claim = candidates[0]!.proof.jwt.claim
      return {
        ok: false,
        reason: 'unknown_client',
        message: `its ${claim} ${quote(payload[claim])} names no configured client`,
      }
    }
    const scopes = scopesOf(payload)
    const missing = proof.scopes.filter((scope) => !scopes.includes(scope))
    if (missing.length > 0)
      return {
        ok: false,
        reason: 'insufficient_scope',
        message: `client ${named.id} needs the scopes ${proof.scopes.join(' ')}; the token lacks ${missing.join(' ')}`,
        scopes: proof.scopes,
      }
    const untilExpiry = typeof payload.exp === 'number' ? payload.exp * 1000 - Date.now() : 0
    verified.set(token, {
      client: named,
      scopes,
      until: Date.now() + Math.max(1, Math.min(untilExpiry, settings.cacheTtlMs)),
      keys: keySet.url,
      generation: keySet.generation,
    })
    return { ok: true, client: named, scopes }
  }

  const remembered = (token: string): Extract<JwtVerdict, { ok: true }> | undefined => {
    const known = verified.get(token)
    if (known && known.until > Date.now() && keys.generation(known.keys) === known.generation)
      return { ok: true, client: known.client, scopes: known.scopes }
    if (known) verified.delete(token)
    return undefined
  }

  return {
    async verify(token) {
      return remembered(token) ?? verifyUncached(token)
    },
    remembered,
    async warm() {
      const results = await Promise.allSettled(
        jwtClients.map((c) => keys.of(c.proof.jwt).then(({ set }) => set.reload())),
      )
      return results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []))
    },
  }
}

async function verifySignedClaims(token: string, proof: JwtProof, keySet: RemoteJWKSet): Promise<JWTPayload> {
  const { jwtVerify } = await loadJose()
  return jwtVerify(token, keySet, {
    issuer: proof.issuer,
    audience: [...proof.audience],
    algorithms: [...proof.algorithms],
    clockTolerance: proof.clockToleranceSeconds,
    requiredClaims: ['exp'],
  }).then(({ payload }) => payload)
}

/** A verified token as the cache keeps it: until its expiry (at most cacheTtlMs) and its keys' change. */
interface VerifiedToken {
  readonly client: Client
  readonly scopes: readonly string[]
  readonly until: number
  /** The JWKS URL whose keys verified it, and their generation then. */
  readonly keys: string
  readonly generation: number
}

interface IssuerKeys {
  /** The issuer's key set: its configured JWKS URL, else the one its OpenID configuration names. */
  of(proof: JwtProof): Promise<{ readonly set: RemoteJWKSet; readonly url: string }>
  /** Bumped each time the JWKS at `url` is fetched with keys other than before. */
  generation(url: string): number
}

/** One jose key set per JWKS URL (clients of one issuer share it); failures back off. */
function createIssuerKeys(settings: typeof DEFAULTS & JwtVerifierOptions): IssuerKeys {
  const sets = new Map<string, { readonly set: RemoteJWKSet; readonly url: string }>()
  const discovered = new Map<string, string>()
  const failures = new Map<string, { at: number; message: string }>()
  const fetched = new Map<string, { readonly text: string; readonly generation: number }>()
  const guarded = async <T>(url: string, attempt: () => Promise<T>): Promise<T> => {
    const failure = failures.get(url)
    if (failure && Date.now() - failure.at < settings.failureBackoffMs)
      throw new KeysUnavailable(`${failure.message} (not retried for ${settings.failureBackoffMs / 1000} s)`)
    try {
      const result = await attempt()
      failures.delete(url)
      return result
    } catch (err) {
      const message = err instanceof KeysUnavailable ? err.message : `${url}: ${(err as Error).message}`
      failures.set(url, { at: Date.now(), message })
      throw new KeysUnavailable(message)
    }
  }
  const fetchOptions = {
    timeoutMs: settings.timeoutMs,
    maxBytes: MAX_DOCUMENT_BYTES,
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  }
  // jose fetches the key set through this: every failure becomes a KeysUnavailable naming its cause.
  const fetchKeySet = async (url: string | URL): Promise<Response> => {
    const body = await guarded(String(url), async () => {
      const value = await fetchJson(String(url), fetchOptions)
      if (!Array.isArray((value as { keys?: unknown })?.keys))
        throw new KeysUnavailable(`${String(url)} is not a JSON Web Key Set (no keys array)`)
      return value
    })
    const text = JSON.stringify(body)
    const before = fetched.get(String(url))
    if (before?.text !== text)
      fetched.set(String(url), { text, generation: before ? before.generation + 1 : 0 })
    return new Response(text, { headers: { 'content-type': 'application/json' } })
  }
  const jwksUrlOf = async (proof: JwtProof): Promise<string> => {
    if (proof.jwksUrl) return proof.jwksUrl
    const known = discovered.get(proof.issuer)
    if (known) return known
    const url = `${proof.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
    const jwksUri = await guarded(url, async () =>
      jwksUriOf(await fetchJson(url, fetchOptions), proof.issuer, url),
    )
    discovered.set(proof.issuer, jwksUri)
    return jwksUri
  }
  return {
    async of(proof) {
      // Before the lookup: no await may fall between finding no set and keeping the one made.
      const { createRemoteJWKSet, customFetch } = await loadJose()
      const url = await jwksUrlOf(proof)
      let known = sets.get(url)
      if (!known) {
        // Keyed as jose will fetch it (the URL's href), so generations match its fetches.
        const href = new URL(url)
        const set = createRemoteJWKSet(href, {
          timeoutDuration: settings.timeoutMs,
          cooldownDuration: proof.keysCooldownSeconds * 1000,
          [customFetch]: fetchKeySet,
        })
        known = { set, url: href.href }
        sets.set(url, known)
      }
      return known
    },
    generation: (url) => fetched.get(url)?.generation ?? 0,
  }
}

/** OpenID Connect Discovery §4.3: the document must name the very issuer it was fetched for. */
function jwksUriOf(document: unknown, issuer: string, url: string): string {
  const { issuer: named, jwks_uri: jwksUri } = (document ?? {}) as { issuer?: unknown; jwks_uri?: unknown }
  if (named !== issuer) throw new KeysUnavailable(`${url} names issuer ${quote(named)}, not ${issuer}`)
  if (typeof jwksUri !== 'string' || !/^https?:\/\//.test(jwksUri))
    throw new KeysUnavailable(`${url} has no jwks_uri`)
  if (!isSecureUrl(jwksUri))
    throw new KeysUnavailable(`${url} names a jwks_uri that is not https: ${jwksUri}`)
  return jwksUri
}

/** `scope` (RFC 9068, space-separated) or `scp` (Entra ID, Okta: a list or a string). */
function scopesOf(payload: JWTPayload): string[] {
  const value = payload.scope ?? payload.scp
  if (typeof value === 'string') return value.split(' ').filter(Boolean)
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

function bad(message: string): JwtVerdict {
  return { ok: false, reason: 'bad_token', message }
}

/** Claim values come from the caller: quoted and cut short before they reach a message. */
function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined'
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
