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
/** Addresses counted in memory; the least recently seen are forgotten beyond this. */
const LOCAL_KEYS = 10_000
/** One warning per this while Redis fails, not one per request. */
const WARN_EVERY_MS = 10_000

export interface RateLimitStoreOptions {
  /** Clients' budgets are shared by every replica through it; unset: in memory. */
  readonly redis?: Redis
  readonly prefix: string
  /**
   * The configured clients' keys (`client:<id>`), the only keys counted apart from addresses: a
   * closed set known at start, so the map that holds them in memory never grows or forgets.
   */
  readonly clientKeys: readonly string[]
  readonly warn: (message: string) => void
}

/** A client's fixed window in memory, counted as LocalStore counts an address's. */
interface Window {
  current: number
  startedAt: number
}

/**
 * Counts requests in @fastify/rate-limit's stores. A client's budget lives in Redis when there is
 * one, so it holds across replicas; anonymous per-address budgets stay in memory (abuse
 * protection, no Redis round trip per discovery request). When Redis fails, a client is counted
 * in this replica's memory instead — each replica then enforces the budget on its own — with a
 * warning: a Redis outage never turns calls into errors, and never lifts the limits.
 *
 * In memory, clients are counted in a map of their own, not in the addresses' LRU (issue 41):
 * 10,000 requests from new addresses evicted a throttled client's count there, and with it the
 * throttle.
 */
export function createRateLimitStore(options: RateLimitStoreOptions): RateLimitCounter {
  const local = new LocalStore(false, false, LOCAL_KEYS)
  const clients = new Map<string, Window>(
    options.clientKeys.map((key) => [key, { current: 0, startedAt: Number.NEGATIVE_INFINITY }]),
  )
  const shared = options.redis && new RedisStore(false, false, options.redis, options.prefix)
  let warnedAt = 0
  // LocalStore calls back before incr returns: one callback for every count, not a closure each.
  let counted: RateCount | null = null
  const keep = (_err: Error | null, result: RateCount | null) => {
    counted = result
  }
  const countLocally = (key: string, windowMs: number, max: number): RateCount => {
    if (key.startsWith(SHARED_KEY_PREFIX)) return countClient(key, windowMs)
    local.incr(key, keep, windowMs, max)
    const count = counted
    counted = null
    if (!count) throw new Error('rate limits: the memory store answered nothing')
    return count
  }
  const countClient = (key: string, windowMs: number): RateCount => {
    const window = clients.get(key)
    if (!window) throw new Error(`rate limits: ${key} is not a configured client's key`)
    const now = Date.now()
    if (window.startedAt + windowMs <= now) {
      window.current = 0
      window.startedAt = now
    }
    window.current++
    return { current: window.current, ttl: windowMs - (now - window.startedAt) }
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
