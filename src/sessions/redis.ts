import type { Redis } from 'ioredis'
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
}

/**
 * Sessions in Redis, shared by every replica and surviving restarts. Each key expires with its
 * grace period (PX), so Redis forgets sessions by itself. The client is configured with a short
 * command timeout and no offline queue: a Redis outage is a quick SessionStoreUnavailable, never a hang.
 */
export function createRedisSessionStore(redis: Redis, options: RedisStoreOptions): SessionStore {
  const now = options.now ?? (() => new Date())
  const graceMs = (options.graceSeconds ?? EXPIRED_GRACE_SECONDS) * 1000
  const key = (code: string) => `${options.prefix}session:${code}`
  const oneWritePerTurn = batchWrites(redis)
  const guarded = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation()
    } catch (err) {
      throw new SessionStoreUnavailable((err as Error).message)
    }
  }
  return {
    create: (input) =>
      guarded(async () => {
        const session = sessionFrom(input, now(), newSessionCode())
        const keepMs = Date.parse(session.expiresAt) - now().getTime() + graceMs
        await redis.set(key(session.code), JSON.stringify(session), 'PX', keepMs, 'NX')
        return session
      }),
    // The one command a manifest request sends (no TTL refresh: the key expires with its session).
    get: (code) => {
      oneWritePerTurn()
      return redis.get(key(code)).then(parseStored, (err: Error) => {
        throw new SessionStoreUnavailable(err.message)
      })
    },
    delete: (code) => guarded(async () => (await redis.del(key(code))) > 0),
    async health() {
      try {
        await redis.ping()
        return 'ok'
      } catch {
        return 'unavailable'
      }
    },
    async close() {},
  }
}

/**
 * Corks the client's socket until the end of this event-loop turn (setImmediate), so that the GETs
 * of every request handled in the turn leave in one writev instead of one write(2) each: per GET,
 * that syscall was a fifth of the manifest route's CPU (bench row 2). Each request still sends its
 * own GET and waits for its own reply; only the syscall is shared. ioredis's `enableAutoPipelining`
 * batches too, but through a Pipeline object per batch and a callback per command, which cost more
 * than it saved. Nothing is corked while the client is not ready: those commands fail at once.
 */
export function batchWrites(redis: Redis): () => void {
  let corked: Redis['stream'] | undefined
  const uncork = () => {
    const stream = corked
    corked = undefined
    stream?.uncork()
  }
  return () => {
    if (corked !== undefined || redis.status !== 'ready') return
    corked = redis.stream
    corked.cork()
    setImmediate(uncork)
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
