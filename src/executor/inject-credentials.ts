import type { SecurityScheme, Service, Tool } from '../catalog/types.js'
import type { Credential, ServiceCredentials } from '../config/secrets.js'
import { encodeCookieName, encodeValue } from './serialize-parameters.js'

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

/**
 * Upstream credentials by security scheme (SPEC §3 step 3): the first of the tool's alternatives
 * whose every scheme has a configured credential is used. An API key goes to its header, query
 * parameter or cookie; http basic and bearer (and oauth2 / OpenID Connect tokens) to
 * Authorization. Nothing from the caller can override these: a header argument of the same name
 * is replaced, and a query or cookie argument of the same name is not sent (build-request.ts).
 */
export function injectCredentials(
  tool: Tool,
  service: Service,
  credentials: ServiceCredentials,
): RequestAuth {
  const auth: RequestAuth = {
    headers: {},
    query: [],
    cookies: [],
    names: { query: new Set(), cookie: new Set() },
  }
  const configured = credentials[service.id] ?? {}
  const usable = tool.auth.find((alternative) =>
    alternative.schemes.every(({ scheme }) => configured[scheme]),
  )
  for (const { scheme } of usable?.schemes ?? []) {
    const definition = service.securitySchemes[scheme]
    const credential = configured[scheme]
    if (definition && credential) apply(definition, credential, auth)
  }
  return auth
}

function apply(scheme: SecurityScheme, credential: Credential, auth: RequestAuth): void {
  if (credential.kind === 'basic') {
    const pair = `${credential.username.reveal()}:${credential.password.reveal()}`
    auth.headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`
    return
  }
  const secret = credential.secret.reveal()
  if (scheme.type === 'apiKey' && scheme.paramName) {
    if (scheme.in === 'query') {
      auth.query.push(`${encodeValue(scheme.paramName)}=${encodeValue(secret)}`)
      auth.names.query.add(scheme.paramName.toLowerCase())
    } else if (scheme.in === 'cookie') {
      auth.cookies.push(`${encodeCookieName(scheme.paramName)}=${encodeValue(secret)}`)
      auth.names.cookie.add(scheme.paramName.toLowerCase())
    } else auth.headers[scheme.paramName.toLowerCase()] = secret
    return
  }
  if (scheme.type === 'http' && scheme.scheme === 'basic') {
    // A single secret for basic auth is taken as the already-joined "user:password".
    auth.headers.authorization = `Basic ${Buffer.from(secret).toString('base64')}`
    return
  }
  auth.headers.authorization = `Bearer ${secret}`
}
