import type { Redis } from 'ioredis'

/** A request's count in its key's window, and how long the window has left (ms). */
export interface RateCount {
  readonly current: number
  readonly ttl: number
}

/** The gateway's counter: a key counted in memory is counted at once, a client's key in Redis later. */
export interface RateLimitCounter {
  count(key: string, windowMs: number): RateCount | Promise<RateCount>
}

/** Keys of clients' budgets; anything else (an address) is counted in this replica only. */
export const SHARED_KEY_PREFIX = 'client:'
/** Addresses counted in memory; the least recently seen are forgotten beyond this. */
const LOCAL_KEYS = 10_000
/** One warning per this while Redis fails, not one per request. */
const WARN_EVERY_MS = 10_000

/**
 * One request counted in a key's fixed window in Redis: the request that opens the window sets
 * its expiry (and one that finds the key without an expiry sets it again, should a write have
 * been lost), so every replica counts into the same window. Answers `[count, ms left]`.
 */
const COUNT_IN_REDIS = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`

/** The script's name on the client: ioredis sends its SHA1 (EVALSHA), the script itself only once a server lacks it. */
const COUNT_COMMAND = 'toolgateRateCount'

type CountingRedis = Redis & Record<typeof COUNT_COMMAND, (key: string, windowMs: number) => Promise<unknown>>

/** The client with the count script defined on it (ioredis' documented `defineCommand`), once per client. */
function withCountCommand(redis: Redis): CountingRedis {
  if (!(COUNT_COMMAND in redis)) redis.defineCommand(COUNT_COMMAND, { numberOfKeys: 1, lua: COUNT_IN_REDIS })
  return redis as CountingRedis
}

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

/** A key's fixed window in memory. */
interface Window {
  current: number
  startedAt: number
}

/**
 * The gateway's own fixed-window counter (issue 44: it used @fastify/rate-limit's store files,
 * which are not its documented interface, and relied on the memory one calling back at once). A
 * client's budget lives in Redis when there is one, so it holds across replicas; anonymous
 * per-address budgets stay in memory (abuse protection, no Redis round trip per discovery
 * request). When Redis fails, a client is counted in this replica's memory instead — each
 * replica then enforces the budget on its own — with a warning: a Redis outage never turns calls
 * into errors, and never lifts the limits.
 *
 * In memory, addresses are counted in a map that forgets the least recently seen beyond 10,000,
 * and clients in a map of their own (issue 41): 10,000 requests from new addresses evicted a
 * throttled client's count from a shared one, and with it the throttle.
 */
export function createRateLimitStore(options: RateLimitStoreOptions): RateLimitCounter {
  const addresses = new Map<string, Window>()
  const clients = new Map<string, Window>(
    options.clientKeys.map((key) => [key, { current: 0, startedAt: Number.NEGATIVE_INFINITY }]),
  )
  const { redis, prefix } = options
  let warnedAt = 0

  const countLocally = (key: string, windowMs: number): RateCount => {
    if (key.startsWith(SHARED_KEY_PREFIX)) {
      const window = clients.get(key)
      if (!window) throw new Error(`rate limits: ${key} is not a configured client's key`)
      return tick(window, windowMs)
    }
    let window = addresses.get(key)
    if (window === undefined) {
      window = { current: 0, startedAt: Number.NEGATIVE_INFINITY }
      // A Map iterates in insertion order: its first key is the least recently seen.
      if (addresses.size >= LOCAL_KEYS) addresses.delete(addresses.keys().next().value!)
    } else addresses.delete(key)
    addresses.set(key, window)
    return tick(window, windowMs)
  }

  const countInRedis = async (redis: CountingRedis, key: string, windowMs: number): Promise<RateCount> => {
    let answer: unknown
    try {
      answer = await redis[COUNT_COMMAND](`${prefix}${key}`, windowMs)
    } catch (err) {
      if (Date.now() - warnedAt > WARN_EVERY_MS) {
        warnedAt = Date.now()
        options.warn(
          `rate limits: Redis failed (${(err as Error).message}); counting clients in this replica's memory`,
        )
      }
      return countLocally(key, windowMs)
    }
    const [current, ttl] = Array.isArray(answer) ? answer : []
    if (typeof current !== 'number' || typeof ttl !== 'number')
      throw new Error(`rate limits: Redis answered ${JSON.stringify(answer)?.slice(0, 80)}, not a count`)
    return { current, ttl }
  }

  const counting = redis ? withCountCommand(redis) : undefined
  return {
    count(key, windowMs) {
      if (!counting || !key.startsWith(SHARED_KEY_PREFIX)) return countLocally(key, windowMs)
      return countInRedis(counting, key, windowMs)
    },
  }
}

/** One request in `window`: a window that has run out starts again with it. */
function tick(window: Window, windowMs: number): RateCount {
  const now = Date.now()
  if (window.startedAt + windowMs <= now) {
    window.current = 0
    window.startedAt = now
  }
  window.current++
  return { current: window.current, ttl: windowMs - (now - window.startedAt) }
}
