import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'

/** A request's count in its key's window, and how long the window has left (ms). */
export interface RateCount {
  readonly current: number
  readonly ttl: number
}

/** @fastify/rate-limit's stores: a fixed window per key; LocalStore calls `done` before `incr` returns. */
interface RateLimitStore {
  incr(
    key: string,
    done: (err: Error | null, result: RateCount | null) => void,
    windowMs: number,
    max: number,
  ): void
}

/** The gateway's counter: a key counted in memory is counted at once, a client's key in Redis later. */
export interface RateLimitCounter {
  count(key: string, windowMs: number, max: number): RateCount | Promise<RateCount>
}

// @fastify/rate-limit ships its stores as CommonJS files without types of their own.
const require = createRequire(import.meta.url)
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cacheSize: number,
) => RateLimitStore
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  prefix: string,
) => RateLimitStore

/** Keys of clients' budgets; anything else (an address) is counted in this replica only. */
export const SHARED_KEY_PREFIX = 'client:'
/** Addresses and clients counted in memory; the least recently seen are forgotten beyond this. */
const LOCAL_KEYS = 10_000
/** One warning per this while Redis fails, not one per request. */
const WARN_EVERY_MS = 10_000

export interface RateLimitStoreOptions {
  /** Clients' budgets are shared by every replica through it; unset: in memory. */
  readonly redis?: Redis
  readonly prefix: string
  readonly warn: (message: string) => void
}

/**
 * Counts requests in @fastify/rate-limit's stores. A client's budget lives in Redis when there is
 * one, so it holds across replicas; anonymous per-address budgets stay in memory (abuse
 * protection, no Redis round trip per discovery request). When Redis fails, a client is counted
 * in this replica's memory instead — each replica then enforces the budget on its own — with a
 * warning: a Redis outage never turns calls into errors, and never lifts the limits.
 */
export function createRateLimitStore(options: RateLimitStoreOptions): RateLimitCounter {
  const local = new LocalStore(false, false, LOCAL_KEYS)
  const shared = options.redis && new RedisStore(false, false, options.redis, options.prefix)
  let warnedAt = 0
  // LocalStore calls back before incr returns: one callback for every count, not a closure each.
  let counted: RateCount | null = null
  const keep = (_err: Error | null, result: RateCount | null) => {
    counted = result
  }
  const countLocally = (key: string, windowMs: number, max: number): RateCount => {
    local.incr(key, keep, windowMs, max)
    const count = counted
    counted = null
    if (!count) throw new Error('rate limits: the memory store answered nothing')
    return count
  }
  return {
    count(key, windowMs, max) {
      if (!shared || !key.startsWith(SHARED_KEY_PREFIX)) return countLocally(key, windowMs, max)
      return new Promise((resolve, reject) =>
        shared.incr(
          key,
          (err, result) => {
            if (!err)
              return result ? resolve(result) : reject(new Error('rate limits: Redis answered nothing'))
            if (Date.now() - warnedAt > WARN_EVERY_MS) {
              warnedAt = Date.now()
              options.warn(
                `rate limits: Redis failed (${err.message}); counting clients in this replica's memory`,
              )
            }
            try {
              resolve(countLocally(key, windowMs, max))
            } catch (failed) {
              reject(failed)
            }
          },
          windowMs,
          max,
        ),
      )
    },
  }
}
