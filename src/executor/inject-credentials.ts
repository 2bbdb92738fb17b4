import type { AuthRequirement, SecurityScheme, Service, Tool } from '../catalog/types.js'
import {
  type Credential,
  type OAuthClientCredential,
  REDACTED,
  type ServiceCredentials,
} from '../config/secrets.js'
import type { TokenNeed } from '../identity/upstream-tokens.js'
import { encodeCookieName, encodeValue } from './serialize-parameters.js'
import type { CredentialSource } from './types.js'

export interface RequestAuth {
  /** Lower-case header name → value. */
  headers: Record<string, string>
  /** Encoded `name=value` query pairs. */
  query: string[]
  /** Encoded `name=value` cookie pairs. */
  cookies: string[]
  /** The query parameter and cookie names taken, lower-cased: no argument may send these (issue 14). */
  names: { query: Set<string>; cookie: Set<string> }
}

/** No credential: nothing to add, no name taken. Read only, never written to. */
const NO_AUTH: RequestAuth = Object.freeze({
  headers: Object.freeze({}) as Record<string, string>,
  query: Object.freeze([]) as unknown as string[],
  cookies: Object.freeze([]) as unknown as string[],
  names: Object.freeze({ query: new Set<string>(), cookie: new Set<string>() }),
})

/** How credentials are written into the request. */
export interface CredentialOptions {
  /** Opal's access token, when the service forwards it: sent as the bearer instead. */
  readonly bearerOverride?: string | undefined
  /** A dry run: every credential value is written as `[redacted]`, the names stay (issue 19). */
  readonly redact?: boolean | undefined
}

/**
 * Upstream credentials by security scheme (SPEC §3 step 3): the first of the tool's alternatives
 * whose every scheme has a configured credential is used. An API key goes to its header, query
 * parameter or cookie; http basic and bearer (and oauth2 / OpenID Connect tokens) to
 * Authorization. Nothing from the caller can override these: the catalog leaves a parameter of the
 * key's name out of the tool, and a query or cookie pair of that name from an exploded object is
 * refused (build-request.ts).
 * Opal's forwarded access token, when given, replaces the bearer. With `redact`, this is the one
 * place a dry run hides them all: each value becomes `[redacted]`, names and schemes stay.
 */
export function injectCredentials(
  tool: Tool,
  service: Service,
  credentials: ServiceCredentials,
  options: CredentialOptions = {},
): RequestAuth {
  const write = options.redact ? REDACTING : REVEALING
  const configured = credentials[service.id]
  const usable = usableAlternative(tool, service, configured)
  // Most calls carry no credential: one shared, frozen answer instead of two Sets per call.
  if (!usable && !options.bearerOverride) return NO_AUTH
  const auth: RequestAuth = {
    headers: {},
    query: [],
    cookies: [],
    names: { query: new Set(), cookie: new Set() },
  }
  for (const { scheme } of usable?.schemes ?? []) {
    const definition = service.securitySchemes[scheme]
    const credential = configured?.[scheme]
    if (definition && credential) apply(definition, credential, auth, write)
  }
  if (options.bearerOverride) auth.headers.authorization = `Bearer ${write.raw(options.bearerOverride)}`
  return auth
}

/** The first of the tool's alternatives whose every scheme has a credential the gateway can send. */
function usableAlternative(
  tool: Tool,
  service: Service,
  configured: Readonly<Record<string, Credential>> | undefined,
): AuthRequirement | undefined {
  if (!configured) return undefined
  return tool.auth.find((alternative) =>
    alternative.schemes.every(({ scheme }) => {
      const credential = configured[scheme]
      // A client without a token endpoint has nothing to send.
      return credential?.kind === 'oauth2-client'
        ? tokenUrlOf(credential, service.securitySchemes[scheme])
        : credential
    }),
  )
}

function tokenUrlOf(
  credential: OAuthClientCredential,
  scheme: SecurityScheme | undefined,
): string | undefined {
  return credential.tokenUrl ?? scheme?.tokenUrl
}

/**
 * The tokens a call needs fetched (issue 45): the OAuth2 clients of the alternative
 * `injectCredentials` uses, with the configured scopes or else the operation's. They go into
 * Authorization once fetched; `injectCredentials` leaves it unset for them (a dry run shows
 * `Bearer [redacted]`).
 */
export function tokenNeeds(
  tool: Tool,
  service: Service,
  credentials: ServiceCredentials,
  owner: string,
): TokenNeed[] {
  const configured = credentials[service.id]
  const needs: TokenNeed[] = []
  for (const { scheme, scopes } of usableAlternative(tool, service, configured)?.schemes ?? []) {
    const credential = configured?.[scheme]
    if (credential?.kind !== 'oauth2-client') continue
    const tokenUrl = tokenUrlOf(credential, service.securitySchemes[scheme])
    if (tokenUrl)
      needs.push({
        service: service.id,
        scheme,
        credential,
        tokenUrl,
        scopes: credential.scopes ?? scopes,
        owner,
      })
  }
  return needs
}

/** Where each credential of the alternative `injectCredentials` uses comes from (issue 45), never its value. */
export function credentialSources(
  tool: Tool,
  service: Service,
  credentials: ServiceCredentials,
  owner: string,
): CredentialSource[] {
  const configured = credentials[service.id]
  return (usableAlternative(tool, service, configured)?.schemes ?? []).map(({ scheme }) => ({
    scheme,
    source:
      configured?.[scheme]?.kind === 'oauth2-client' ? 'fetched' : owner === 'gateway' ? 'gateway' : 'client',
    owner,
  }))
}

/** How a secret becomes text in the request: as it is (encoded where it goes), or `[redacted]` — readable, never percent-encoded. */
interface Writer {
  raw(secret: string): string
  encoded(secret: string): string
  base64(secret: string): string
}

const REVEALING: Writer = {
  raw: (secret) => secret,
  encoded: encodeValue,
  base64: (secret) => Buffer.from(secret).toString('base64'),
}
const REDACTING: Writer = {
  raw: () => REDACTED,
  encoded: () => REDACTED,
  base64: () => REDACTED,
}

function apply(scheme: SecurityScheme, credential: Credential, auth: RequestAuth, write: Writer): void {
  if (credential.kind === 'basic') {
    const pair = `${credential.username.reveal()}:${credential.password.reveal()}`
    auth.headers.authorization = `Basic ${write.base64(pair)}`
    return
  }
  if (credential.kind === 'oauth2-client') {
    // Fetched when the call is sent (execute-tool.ts); a dry run fetches nothing.
    if (write === REDACTING) auth.headers.authorization = `Bearer ${REDACTED}`
    return
  }
  const secret = credential.secret.reveal()
  if (scheme.type === 'apiKey' && scheme.paramName) {
    if (scheme.in === 'query') {
      auth.query.push(`${encodeValue(scheme.paramName)}=${write.encoded(secret)}`)
      auth.names.query.add(scheme.paramName.toLowerCase())
    } else if (scheme.in === 'cookie') {
      auth.cookies.push(`${encodeCookieName(scheme.paramName)}=${write.encoded(secret)}`)
      auth.names.cookie.add(scheme.paramName.toLowerCase())
    } else auth.headers[scheme.paramName.toLowerCase()] = write.raw(secret)
    return
  }
  if (scheme.type === 'http' && scheme.scheme === 'basic') {
    // A single secret for basic auth is taken as the already-joined "user:password".
    auth.headers.authorization = `Basic ${write.base64(secret)}`
    return
  }
  auth.headers.authorization = `Bearer ${write.raw(secret)}`
}
