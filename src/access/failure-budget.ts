import { LRUCache } from 'lru-cache'
import type { RateLimit } from './types.js'

/**
 * Failed authentications per address (issue 41): a bad, unknown, forged or expired token costs
 * its sender's address one try, taken before the token is verified, so a flood past the budget
 * costs no signature verification, no JWKS fetch and no log line of its own.
 */
export interface FailureBudget {
  /**
   * Takes one try for `group` before its token is judged: the seconds to wait when the budget is
   * spent (the token must then not be verified), else 0.
   */
  take(group: string): number
  /** Gives back a try the token did not fail: it proved a client, or its issuer's keys were down. */
  refund(group: string): void
}

/** Addresses remembered; the least recently seen forgotten beyond this (as for anonymous budgets). */
const GROUPS = 10_000

interface Window {
  tries: number
  startedAt: number
}

/** A fixed window per address group, in this replica's memory (no Redis round trip per bad token). */
export function createFailureBudget(limit: RateLimit, now: () => number = Date.now): FailureBudget {
  const windows = new LRUCache<string, Window>({ max: GROUPS })
  return {
    take(group) {
      const at = now()
      let window = windows.get(group)
      if (!window || window.startedAt + limit.windowMs <= at) {
        window = { tries: 0, startedAt: at }
        windows.set(group, window)
      }
      window.tries++
      if (window.tries <= limit.max) return 0
      return Math.max(1, Math.ceil((window.startedAt + limit.windowMs - at) / 1000))
    },
    refund(group) {
      const window = windows.peek(group)
      if (window && window.tries > 0) window.tries--
    },
  }
}
