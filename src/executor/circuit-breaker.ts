export type BreakerState = 'closed' | 'open' | 'half-open'

export interface BreakerOptions {
  /** Consecutive failures that open the circuit. */
  readonly failureThreshold: number
  /** How long an open circuit refuses calls before one probe is let through. */
  readonly cooldownMs: number
  readonly now: () => number
  /**
   * A circuit that closes is forgotten, so the breaker holds only the keys failing now: for keys
   * drawn from callers (origin, tool, client) rather than from the configured origins.
   */
  readonly forgetClosed?: boolean
}

interface Circuit {
  state: BreakerState
  failures: number
  openedAt: number
  probing: boolean
}

export interface CircuitBreaker {
  /** Undefined when the call may go; else the ms until the circuit lets a probe through. */
  refuse(origin: string): number | undefined
  /** What `refuse` would answer, without taking a half-open circuit's probe slot. */
  waiting(origin: string): number | undefined
  succeed(origin: string): void
  fail(origin: string): void
  /** The call said nothing about the upstream (cancelled, never sent): a probe slot it held is freed. */
  release(origin: string): void
  states(): Record<string, BreakerState>
  /** One circuit's state (`closed` when it has none), as `states()` lists it. */
  state(origin: string): BreakerState
}

/**
 * One circuit per key — an upstream origin (SPEC §3 step 5), or one caller of it (issue 41 class 5,
 * upstream-client.ts): closed → open after N consecutive failures → after the cooldown, half-open
 * lets one probe through → closed on success, open again on failure.
 */
export function createCircuitBreaker(options: BreakerOptions): CircuitBreaker {
  const circuits = new Map<string, Circuit>()
  const circuit = (origin: string) => {
    let found = circuits.get(origin)
    if (!found) {
      found = { state: 'closed', failures: 0, openedAt: 0, probing: false }
      circuits.set(origin, found)
    }
    return found
  }
  /** The ms `c` still refuses calls; undefined when it lets one through (as a probe if not closed). */
  const wait = (c: Circuit | undefined): number | undefined => {
    if (!c || c.state === 'closed') return undefined
    const remaining = c.openedAt + options.cooldownMs - options.now()
    if (c.state === 'open' && remaining > 0) return remaining
    return c.probing ? Math.max(remaining, 1000) : undefined
  }
  return {
    refuse(origin) {
      const c = options.forgetClosed ? circuits.get(origin) : circuit(origin)
      const remaining = wait(c)
      if (remaining !== undefined || !c || c.state === 'closed') return remaining
      c.state = 'half-open'
      c.probing = true
      return undefined
    },
    waiting: (origin) => wait(circuits.get(origin)),
    succeed(origin) {
      if (options.forgetClosed) circuits.delete(origin)
      else Object.assign(circuit(origin), { state: 'closed', failures: 0, probing: false })
    },
    fail(origin) {
      const c = circuit(origin)
      c.failures++
      c.probing = false
      if (c.state === 'half-open' || c.failures >= options.failureThreshold) {
        c.state = 'open'
        c.openedAt = options.now()
      }
    },
    release(origin) {
      const c = circuits.get(origin)
      if (c) c.probing = false
    },
    states: () => Object.fromEntries([...circuits].map(([origin, c]) => [origin, c.state])),
    state: (origin) => circuits.get(origin)?.state ?? 'closed',
  }
}
