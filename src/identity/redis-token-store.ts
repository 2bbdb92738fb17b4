import { setTimeout as delay } from 'node:timers/promises'
import type { Redis } from 'ioredis'
import type { SharedTokenStore } from './token-cache.js'

/** A Redis round trip on the call path waits no longer (SPEC §5: Redis is never a hang). */
const REDIS_TIMEOUT_MS = 250

/**
 * Fetched tokens shared by every replica (issue 45), each expiring when its holder would refresh
 * it. A slow or failing Redis is a miss: the replica asks the token endpoint itself.
 */
export function createRedisTokenStore(redis: Redis, prefix: string): SharedTokenStore {
  return {
    async get(key) {
      const value = await bounded(redis.get(`${prefix}${key}`))
      return value ?? undefined
    },
    async set(key, value, ttlMs) {
      if (ttlMs <= 0) return
      await bounded(redis.set(`${prefix}${key}`, value, 'PX', Math.ceil(ttlMs)))
    },
  }
}

async function bounded<T>(operation: Promise<T>): Promise<T> {
  const timer = new AbortController()
  try {
    return await Promise.race([
      operation,
      delay(REDIS_TIMEOUT_MS, undefined, { signal: timer.signal }).then(() => {
        throw new Error(`Redis did not answer within ${REDIS_TIMEOUT_MS} ms`)
      }),
    ])
  } finally {
    timer.abort()
  }
}
