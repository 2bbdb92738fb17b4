export type BreakerState = 'closed' | 'open' | 'half-open'

export interface BreakerOptions {
  /** Consecutive failures that open the circuit. */
  readonly failureThreshold: number
  /** How long an open circuit refuses calls before one probe is let through. */
  readonly cooldownMs: number
  readonly now: () => number
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
  succeed(origin: string): void
  fail(origin: string): void
  /** The call said nothing about the upstream (cancelled, never sent): a probe slot it held is freed. */
  release(origin: string): void
  states(): Record<string, BreakerState>
}

/**
 * One circuit per upstream origin (SPEC §3 step 5): closed → open after N consecutive failures →
 * after the cooldown, half-open lets one probe through → closed on success, open again on failure.
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
  return {
    refuse(origin) {
      const c = circuit(origin)
      if (c.state === 'closed') return undefined
      const remaining = c.openedAt + options.cooldownMs - options.now()
      if (c.state === 'open' && remaining > 0) return remaining
      if (c.probing) return Math.max(remaining, 1000)
      c.state = 'half-open'
      c.probing = true
      return undefined
    },
    succeed(origin) {
      const c = circuit(origin)
      Object.assign(c, { state: 'closed', failures: 0, probing: false })
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
      circuit(origin).probing = false
    },
    states: () => Object.fromEntries([...circuits].map(([origin, c]) => [origin, c.state])),
  }
}
