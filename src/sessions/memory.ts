import {
  EXPIRED_GRACE_SECONDS,
  newSessionCode,
  type Session,
  type SessionStore,
  sessionFrom,
} from './types.js'

export interface MemoryStoreOptions {
  readonly now?: () => Date
  readonly graceSeconds?: number
}

/** The embedded store: one process, nothing to run. Forgotten sessions are swept lazily. */
export function createMemorySessionStore(options: MemoryStoreOptions = {}): SessionStore {
  const now = options.now ?? (() => new Date())
  const graceMs = (options.graceSeconds ?? EXPIRED_GRACE_SECONDS) * 1000
  const sessions = new Map<string, Session>()
  const forgotten = (session: Session) => Date.parse(session.expiresAt) + graceMs <= now().getTime()
  const sweep = () => {
    for (const [code, session] of sessions) if (forgotten(session)) sessions.delete(code)
  }
  const held = (code: string): Session | undefined => {
    const session = sessions.get(code)
    if (!session || !forgotten(session)) return session
    sessions.delete(code)
    return undefined
  }
  let creations = 0
  return {
    async create(input) {
      if (++creations % 1000 === 0) sweep()
      const session = sessionFrom(input, now(), newSessionCode())
      sessions.set(session.code, session)
      return session
    },
    async get(code) {
      return held(code)
    },
    cached: held,
    async delete(code) {
      return sessions.delete(code)
    },
    health: async () => 'ok',
    async close() {
      sessions.clear()
    },
  }
}
