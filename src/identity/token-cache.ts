import type { IssuedToken, TokenFailure } from './token-endpoint.js'

/** Where replicas share fetched tokens (Redis when configured); every failure of it is only a miss. */
export interface SharedTokenStore {
  get(key: string): Promise<string | undefined>
  set(key: string, value: string, ttlMs: number): Promise<void>
}

export interface TokenCacheOptions {
  readonly now: () => number
  readonly shared?: SharedTokenStore | undefined
  /** Tokens kept at most; past it the oldest is forgotten (exchanged tokens: one per caller token). */
  readonly maxEntries?: number
}

/** How a token is asked for. */
export interface TokenLookup {
  /** The cache key: it names the token's owner, endpoint, audience and scopes, never a secret. */
  readonly key: string
  readonly fetch: () => Promise<IssuedToken | TokenFailure>
  /** A token the upstream refused (401): it is not answered again, a new one is fetched. */
  readonly replacing?: string | undefined
}

export interface TokenCache {
  get(lookup: TokenLookup): Promise<string | TokenFailure>
}

interface Cached {
  readonly token: string
  /** Epoch ms after which the token is fetched again: shortly before it expires. */
  readonly refreshAt: number
}

/** Far more than a deployment's (owner, service, scheme, scopes); for exchanged tokens, callers at once. */
const DEFAULT_MAX_ENTRIES = 10_000
/** A token whose endpoint gives no expires_in is used this long (the upstream's 401 refreshes it sooner). */
const DEFAULT_LIFETIME_S = 300
/** Refreshed this share of its lifetime before it expires… */
const REFRESH_SHARE = 0.1
/** …but never more than a minute early. */
const MAX_REFRESH_EARLY_MS = 60_000

/**
 * Fetched tokens by key, until shortly before they expire. One fetch per key at a time: calls
 * that find none wait for the fetch under way (a hundred concurrent first calls make one token
 * request). A failure is answered to the calls that waited for it and never cached. With a shared
 * store, a replica takes another's token before it asks the endpoint itself.
 */
export function createTokenCache({
  now,
  shared,
  maxEntries = DEFAULT_MAX_ENTRIES,
}: TokenCacheOptions): TokenCache {
  const tokens = new Map<string, Cached>()
  const inFlight = new Map<string, Promise<string | TokenFailure>>()

  const remember = (key: string, cached: Cached) => {
    tokens.delete(key)
    tokens.set(key, cached)
    // A Map iterates in insertion order: the first key is the oldest.
    if (tokens.size > maxEntries) tokens.delete(tokens.keys().next().value as string)
  }

  const usable = (cached: Cached | undefined, replacing: string | undefined) =>
    cached !== undefined && cached.refreshAt > now() && cached.token !== replacing

  const load = async ({ key, fetch, replacing }: TokenLookup): Promise<string | TokenFailure> => {
    const fromShared = shared ? readShared(await shared.get(key).catch(() => undefined)) : undefined
    if (fromShared && usable(fromShared, replacing)) {
      remember(key, fromShared)
      return fromShared.token
    }
    const issued = await fetch()
    if ('failure' in issued) return issued
    const lifetimeMs = (issued.expiresIn ?? DEFAULT_LIFETIME_S) * 1000
    const cached = {
      token: issued.accessToken,
      refreshAt: now() + lifetimeMs - Math.min(MAX_REFRESH_EARLY_MS, lifetimeMs * REFRESH_SHARE),
    }
    remember(key, cached)
    await shared?.set(key, JSON.stringify(cached), cached.refreshAt - now()).catch(() => undefined)
    return cached.token
  }

  return {
    get(lookup) {
      const cached = tokens.get(lookup.key)
      if (cached && usable(cached, lookup.replacing)) return Promise.resolve(cached.token)
      const pending = inFlight.get(lookup.key)
      if (pending) return pending
      const started = load(lookup).finally(() => inFlight.delete(lookup.key))
      inFlight.set(lookup.key, started)
      return started
    },
  }
}

/** A shared entry, or nothing when it is not one (another version wrote it, or it was tampered with). */
function readShared(text: string | undefined): Cached | undefined {
  if (text === undefined) return undefined
  try {
    const value = JSON.parse(text) as Partial<Cached>
    return typeof value.token === 'string' && typeof value.refreshAt === 'number'
      ? { token: value.token, refreshAt: value.refreshAt }
      : undefined
  } catch {
    return undefined
  }
}
