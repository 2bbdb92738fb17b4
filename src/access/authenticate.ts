import { createHash, timingSafeEqual } from 'node:crypto'
import { createJwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js'
import type { Client } from './types.js'

/** What an Authorization header proves. */
export type Authentication =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'client'
      readonly client: Client
      readonly scopes?: readonly string[]
      /** The JWT that proved it (none for a static token). */
      readonly jwt?: string
    }
  | {
      readonly kind: 'refused'
      readonly reason: 'bad_token' | 'keys_unavailable' | 'unknown_client' | 'insufficient_scope'
      readonly message: string
      readonly scopes?: readonly string[]
    }
  /** The gate refused: the token was neither known already nor judged. */
  | { readonly kind: 'unjudged' }

/**
 * Asked once before a token costs anything beyond a digest or a cache lookup (it is malformed, or
 * neither a static token nor a JWT verified before): false, and the token is not judged.
 */
export type JudgeGate = () => boolean

export interface Authenticator {
  /** Without a gate, every token is judged. */
  authenticate(header: string | undefined, gate?: JudgeGate): Promise<Authentication>
  /** Fetches the JWT issuers' keys now; returns what failed. */
  warm(): Promise<string[]>
}

/** Real tokens are far shorter; a longer one is refused before any work is done on it. */
export const MAX_TOKEN_LENGTH = 4_096
/** RFC 6750 §2.1 b64token. */
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * `Authorization: Bearer <token>` → the client it names: a static token (compared as a SHA-256
 * digest in constant time, against every client, without an early exit) or a JWT (jose). A known
 * static token or a JWT verified before passes without the gate: a caller whose address spent its
 * failures (issue 41) keeps working with a good token, while a new token waits for the gate.
 */
export function createAuthenticator(
  clients: readonly Client[],
  options: JwtVerifierOptions = {},
): Authenticator {
  const matchStatic = createStaticTokenMatcher(clients)
  const jwt = createJwtVerifier(clients, options)
  return {
    async authenticate(header, gate = pass) {
      if (header === undefined) return { kind: 'none' }
      const token = bearerToken(header)
      if (typeof token !== 'string') return gate() ? token : UNJUDGED
      const client = matchStatic(token)
      if (client) return { kind: 'client', client }
      const known = jwt.remembered(token)
      if (known) return { kind: 'client', client: known.client, scopes: known.scopes, jwt: token }
      if (!gate()) return UNJUDGED
      const verdict = await jwt.verify(token)
      if (verdict.ok) return { kind: 'client', client: verdict.client, scopes: verdict.scopes, jwt: token }
      return { kind: 'refused', ...verdict }
    },
    warm: () => jwt.warm(),
  }
}

const pass: JudgeGate = () => true
const UNJUDGED = { kind: 'unjudged' } as const

function bearerToken(header: string): string | Extract<Authentication, { kind: 'refused' }> {
  const refuse = (message: string) => ({ kind: 'refused', reason: 'bad_token', message }) as const
  if (header.trim() === '') return refuse('the Authorization header is empty')
  if (header.length > MAX_TOKEN_LENGTH + 7)
    return refuse(`the token is longer than ${MAX_TOKEN_LENGTH} characters`)
  const trimmed = header.trim()
  const space = trimmed.indexOf(' ')
  const scheme = space === -1 ? trimmed : trimmed.slice(0, space)
  const token = space === -1 ? '' : trimmed.slice(space + 1).trimStart()
  if (scheme.toLowerCase() !== 'bearer')
    return refuse(`only Bearer tokens are accepted, not ${JSON.stringify(scheme.slice(0, 20))}`)
  if (!TOKEN_SYNTAX.test(token)) return refuse('the bearer token is malformed (RFC 6750 §2.1)')
  return token
}

/** Static tokens, kept as SHA-256 digests only. */
function createStaticTokenMatcher(clients: readonly Client[]): (token: string) => Client | undefined {
  const known = clients.flatMap((client) =>
    client.proof.kind === 'token' ? [{ client, digest: client.proof.sha256 }] : [],
  )
  if (known.length === 0) return () => undefined
  return (token) => {
    const digest = createHash('sha256').update(token).digest()
    let found: Client | undefined
    for (const entry of known) if (timingSafeEqual(digest, entry.digest) && !found) found = entry.client
    return found
  }
}
