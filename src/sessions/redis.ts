import type { Redis } from 'ioredis'
import { ReadCache, trackReads } from './tracked-cache.js'
import {
  EXPIRED_GRACE_SECONDS,
  newSessionCode,
  type Session,
  type SessionStore,
  SessionStoreUnavailable,
  sessionFrom,
} from './types.js'

export interface RedisStoreOptions {
  /** Key prefix: `toolgate:` in production, one per test run. */
  readonly prefix: string
  readonly now?: () => Date
  readonly graceSeconds?: number
  /**
   * Cache found sessions in this process, kept consistent by Redis (tracked-cache.ts): reads go
   * through two more connections duplicated from `redis`, closed by `close()`. Connection errors
   * of those go to `onError`.
   */
  readonly readCache?: { readonly maxEntries?: number; readonly onError?: (err: Error) => void }
}

/**
 * Sessions in Redis, shared by every replica and surviving restarts. Each key expires with its
 * grace period (PX), so Redis forgets sessions by itself. The client is configured with a short
 * command timeout and no offline queue: a Redis outage is a quick SessionStoreUnavailable, never a hang.
 * With `readCache`, found sessions are served from this process until Redis invalidates their key
 * (sessions never change once created, so a GET per manifest request was the route's largest cost:
 * bench row 2, 34.7 → 18.8 µs of gateway CPU per request); what another replica deletes is gone
 * here once Redis's invalidation arrives, what this one deletes at once.
 */
export function createRedisSessionStore(redis: Redis, options: RedisStoreOptions): SessionStore {
  const now = options.now ?? (() => new Date())
  const nowMs = options.now ? () => now().getTime() : Date.now
  const graceMs = (options.graceSeconds ?? EXPIRED_GRACE_SECONDS) * 1000
  const key = (code: string) => `${options.prefix}session:${code}`
  const cache = options.readCache ? new ReadCache<Session>(options.readCache.maxEntries) : undefined
  const tracked = cache && trackReads(redis, cache, options.readCache?.onError ?? (() => {}))
  const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation()
    } catch (err) {
      throw new SessionStoreUnavailable((err as Error).message)
    }
  }
  const unavailable = (err: Error) => {
    throw new SessionStoreUnavailable(err.message)
  }
  // The reader while it is up; the main client meanwhile (at boot, or while the reader reconnects),
  // so that a reader not yet connected is not a 503 while Redis answers.
  const via = (): Redis => (tracked?.reader.status === 'ready' ? tracked.reader : redis)
  // The one command a manifest request sends (no TTL refresh: the key expires with its session),
  // unless the cache holds the session: a found one is kept until Redis invalidates it or its key's
  // PX is over, a miss never. Only replies of the tracking reader are kept (begin() is undefined
  // while caching is off, and it is off while the reader is not ready).
  const fetch = (stored: string): Promise<Session | undefined> => {
    const held = cache?.lookup(stored, nowMs())
    if (held !== undefined) return Promise.resolve(held)
    const client = via()
    const read = client === redis ? undefined : cache?.begin(stored)
    return client.get(stored).then(
      (value) => {
        let session: Session | undefined
        try {
          session = parseStored(value)
          return session
        } finally {
          cache?.settle(stored, read, session, session && Date.parse(session.expiresAt) + graceMs)
        }
      },
      (err: Error) => {
        cache?.settle(stored, read)
        return unavailable(err)
      },
    )
  }
  return {
    create: (input) =>
      guarded(async () => {
        const session = sessionFrom(input, now(), newSessionCode())
        const keepMs = Date.parse(session.expiresAt) - now().getTime() + graceMs
        await redis.set(key(session.code), JSON.stringify(session), 'PX', keepMs, 'NX')
        return session
      }),
    get: (code) => fetch(key(code)),
    // What get() would answer without a GET; a miss (or caching off) is for get().
    ...(cache ? { cached: (code: string) => cache.lookup(key(code), nowMs()) } : {}),
    // Deleted here: dropped here at once (and any read in flight not kept), before Redis's
    // invalidation arrives.
    delete: (code) =>
      guarded(async () => {
        cache?.invalidate([key(code)])
        const deleted = (await redis.del(key(code))) > 0
        cache?.invalidate([key(code)])
        return deleted
      }),
    async health() {
      try {
        await redis.ping()
        return 'ok'
      } catch {
        return 'unavailable'
      }
    },
    close: async () => tracked?.close(),
  }
}

/** A stored session; a value that is not one fails like the store (it is not the client's fault). */
function parseStored(stored: string | null): Session | undefined {
  if (stored === null) return undefined
  try {
    return JSON.parse(stored) as Session
  } catch (err) {
    throw new SessionStoreUnavailable((err as Error).message)
  }
}

/** ioredis options for the request path (SPEC §5 "Redis is never a hang"). */
export const REDIS_CLIENT_OPTIONS = {
  commandTimeout: 500, // ms: a command that takes longer fails the request with a 503
  connectTimeout: 2_000,
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false, // while disconnected, commands fail at once instead of queueing
  retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000), // keep reconnecting, forever
} as const
