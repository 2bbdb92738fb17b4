import { randomBytes } from 'node:crypto'

export interface Session {
  /** 160 random bits, base32 (RFC 4648 alphabet, no padding). */
  readonly code: string
  readonly profile: string
  readonly createdAt: string
  readonly expiresAt: string
  /** The client that created it: its manifest lists only what that client may call. */
  readonly client?: string
}

export interface NewSession {
  readonly profile: string
  readonly ttlSeconds: number
  readonly client?: string
}

/**
 * Where sessions live: the embedded memory store by default, Redis when REDIS_URL is set (shared
 * by every replica, surviving restarts). Both keep a session for a grace period after it expires,
 * so that an expired code answers 403, not 401 (seed 001).
 */
export interface SessionStore {
  create(input: NewSession): Promise<Session>
  /** The session, expired or not, while it is within its grace period; undefined once forgotten. */
  get(code: string): Promise<Session | undefined>
  /**
   * The session when this process already holds it, without waiting: what `get` would answer, or
   * undefined when only `get` can tell (not held here, or unknown). A manifest request answers a
   * held session within its handler, with no promise (bench row 2).
   */
  cached?(code: string): Session | undefined
  /** True when a session was deleted. */
  delete(code: string): Promise<boolean>
  /** 'ok', or 'unavailable' when the backing service does not answer. */
  health(): Promise<'ok' | 'unavailable'>
  close(): Promise<void>
}

/** The backing service did not answer in time: session routes answer 503, nothing else is affected. */
export class SessionStoreUnavailable extends Error {
  constructor(cause: string) {
    super(`session store unavailable: ${cause}`)
    this.name = 'SessionStoreUnavailable'
  }
}

/** How long an expired session still answers 403 before it is forgotten (seed 001, SPEC §2). */
export const EXPIRED_GRACE_SECONDS = 3_600 // 1 h
export const SESSION_CODE_PATTERN = /^[A-Z2-7]{32}$/
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** 20 random bytes (160 bits, over the 128 SPEC §2 asks) as 32 base32 characters. */
export function newSessionCode(random: (size: number) => Buffer = randomBytes): string {
  const bytes = random(20)
  let bits = 0
  let value = 0
  let code = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      code += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return code
}

export function sessionFrom(input: NewSession, now: Date, code: string): Session {
  return {
    code,
    profile: input.profile,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + input.ttlSeconds * 1000).toISOString(),
    ...(input.client ? { client: input.client } : {}),
  }
}
