import type { FormData } from 'undici'
import { UNCARRIED_HEADERS } from '../catalog/gateway-headers.js'
import { firstOrigin } from '../catalog/server-origin.js'
import type { Service, Tool } from '../catalog/types.js'
import type { ServiceCredentials } from '../config/secrets.js'
import { encodeBody, isJson } from './encode-body.js'
import { injectCredentials } from './inject-credentials.js'
import {
  pairName,
  serializeCookieParameter,
  serializeHeaderParameter,
  serializePathParameter,
  serializeQueryParameter,
} from './serialize-parameters.js'
import type { Violation } from './types.js'

export interface UpstreamRequest {
  readonly method: string
  /** scheme://host:port, fixed by configuration or the spec: never by the caller. */
  readonly origin: string
  /** Path and query, encoded. */
  readonly path: string
  readonly headers: Record<string, string>
  readonly body?: string | Buffer | FormData
}

export type BuiltRequest =
  | { readonly ok: true; readonly request: UpstreamRequest }
  | { readonly ok: false; readonly violations: readonly Violation[] }

export interface RequestContext {
  readonly service: Service
  /** The service's base URL: configured upstream, else the tool's or the spec's first server. */
  readonly baseUrl: URL
  readonly credentials: ServiceCredentials
  /** Opal's access token, when the service forwards it. */
  readonly bearerOverride?: string | undefined
  readonly requestId?: string | undefined
  readonly userAgent: string
  /** A dry run: credentials (and the forwarded token) are written as `[redacted]`. */
  readonly redactCredentials?: boolean
}

/**
 * Headers an argument may never set: the gateway owns framing, routing and credentials. The
 * catalog leaves such parameters out of every tool (gateway-headers.ts); this is the second fence.
 */
const GATEWAY_HEADERS: ReadonlySet<string> = new Set(UNCARRIED_HEADERS.keys())

/** A forwarded bearer token: visible ASCII, no spaces (RFC 6750's b64token is stricter; real tokens vary). */
const BEARER_TOKEN = /^[\x21-\x7e]+$/

/** Validated arguments → the upstream request (SPEC §3 step 2 and 3). */
export function buildRequest(
  tool: Tool,
  args: Record<string, unknown>,
  context: RequestContext,
): BuiltRequest {
  const violations: Violation[] = []
  // Credentials first: their names are the gateway's alone (issue 14 class 2).
  const auth = injectCredentials(tool, context.service, context.credentials, {
    bearerOverride: context.bearerOverride,
    redact: context.redactCredentials,
  })
  // A pair under a credential's name (an exploded object's key: the catalog already leaves out
  // parameters of that name) is refused, never dropped: the call the caller meant is not sent.
  const credentialPairs = (names: ReadonlySet<string>, key: string, pairs: string[]) => {
    if (names.size === 0) return pairs
    for (const pair of pairs)
      if (names.has(pairName(pair).toLowerCase()))
        violations.push({
          path: `/${key}`,
          message: `must not send ${JSON.stringify(pairName(pair))}: the gateway sends the service's credential under that name`,
        })
    return pairs
  }
  const plan = planOf(tool)
  let path = tool.path
  const query: string[] = []
  const cookies: string[] = []
  // Header and body property names are the spec's: `__proto__` must stay a key, `constructor`
  // must not be inherited.
  const headers: Record<string, string> = Object.create(null)
  const bodyArgs: Record<string, unknown> = Object.create(null)
  let whole: unknown
  for (const { key, target, parameter, placeholder, header } of plan.bindings) {
    const value = Object.hasOwn(args, key) ? args[key] : undefined
    // null is "left out" for what the tool leaves optional (strict mode sends every optional
    // argument as null); a required JSON body, or a required field of one, whose schema admits
    // null is sent as `null` (Apideck's `company_name`: required and nullable).
    if (value === null && target.in === 'body' && sendsNull(tool, key)) {
      if ('whole' in target) whole = null
      else bodyArgs[target.name] = null
    }
    if (value === undefined || value === null) continue
    if (target.in === 'body') {
      if ('whole' in target) whole = value
      else bodyArgs[target.name] = value
      continue
    }
    if (!parameter) continue
    if (target.in === 'path') {
      const segment = serializePathParameter(parameter, value)
      // An empty value would collapse the path (`/epochs/1/blocks/`) onto another route.
      if (segment === '')
        violations.push({ path: `/${key}`, message: 'must not be empty: it fills a path segment' })
      path = path.replaceAll(placeholder, () => segment)
    } else if (target.in === 'query') {
      query.push(...credentialPairs(auth.names.query, key, serializeQueryParameter(parameter, value)))
    } else if (target.in === 'cookie') {
      cookies.push(...credentialPairs(auth.names.cookie, key, serializeCookieParameter(parameter, value)))
    } else if (header !== undefined) {
      const text = serializeHeaderParameter(parameter, value)
      if (text === undefined)
        violations.push({
          path: `/${key}`,
          message:
            'must be printable ASCII: a header cannot carry line breaks, control or non-ASCII characters',
        })
      else headers[header] = text
    }
  }
  const body = encodeBody(tool, bodyArgs, whole, violations)
  if (context.bearerOverride !== undefined && !BEARER_TOKEN.test(context.bearerOverride))
    violations.push({
      path: 'auth.credentials.access_token',
      message: 'must be printable ASCII without spaces: it is sent in the Authorization header',
    })
  if (violations.length > 0) return { ok: false, violations }
  Object.assign(headers, auth.headers)
  const cookieHeader = (auth.cookies.length > 0 ? cookies.concat(auth.cookies) : cookies).join('; ')
  if (cookieHeader) headers.cookie = cookieHeader
  if (body?.contentType) headers['content-type'] = body.contentType
  headers.accept ??= 'application/json, text/plain;q=0.9, */*;q=0.8'
  // A User-Agent or X-Request-Id the spec declares and the caller gave is the upstream's to read
  // (GitHub asks for a User-Agent naming the app; an X-Request-Id is often an idempotency or
  // correlation key): the gateway's own go out only when no argument set them (issue 42 class 7).
  headers['user-agent'] ??= context.userAgent
  if (context.requestId) headers['x-request-id'] ??= context.requestId
  const base = baseOf(context.baseUrl)
  const search = (auth.query.length > 0 ? query.concat(auth.query) : query).join('&')
  return {
    ok: true,
    request: {
      method: plan.method,
      origin: base.origin,
      path: `${base.path}${neutralizeDotSegments(path)}${search ? `?${search}` : ''}`,
      headers,
      ...(body ? { body: body.body } : {}),
    },
  }
}

/** One argument's binding, with what it needs from the tool resolved once. */
interface PlannedBinding {
  readonly key: string
  readonly target: Tool['binding']['arguments'][string]
  /** The parameter it fills; undefined for a body property, or a binding with no parameter. */
  readonly parameter: Tool['parameters'][number] | undefined
  /** A path parameter's `{name}` in the path template. */
  readonly placeholder: string
  /** A header parameter's name in lower case; undefined when the gateway owns that header. */
  readonly header: string | undefined
}

interface RequestPlan {
  readonly bindings: readonly PlannedBinding[]
  readonly method: string
}

/**
 * What a call needs from its tool that no argument changes, made once per tool (tools are
 * immutable, one per catalog version): no key, placeholder or header name is built per call.
 */
const plans = new WeakMap<Tool, RequestPlan>()

function planOf(tool: Tool): RequestPlan {
  let plan = plans.get(tool)
  if (!plan) {
    const byName = new Map(tool.parameters.map((p) => [`${p.in}:${p.name}`, p]))
    const bindings = Object.entries(tool.binding.arguments).map(([key, target]): PlannedBinding => {
      if (target.in === 'body')
        return { key, target, parameter: undefined, placeholder: '', header: undefined }
      const header = target.in === 'header' ? target.name.toLowerCase() : undefined
      return {
        key,
        target,
        parameter: byName.get(`${target.in}:${target.name}`),
        placeholder: `{${target.name}}`,
        header: header === undefined || GATEWAY_HEADERS.has(header) ? undefined : header,
      }
    })
    plan = { bindings, method: tool.method.toUpperCase() }
    plans.set(tool, plan)
  }
  return plan
}

/**
 * A base URL's origin, and its path without trailing slashes, once per parsed base URL (they are
 * cached per tool): `URL#origin` builds a new string on every read.
 */
const bases = new WeakMap<URL, { readonly origin: string; readonly path: string }>()

function baseOf(url: URL): { readonly origin: string; readonly path: string } {
  let base = bases.get(url)
  if (base === undefined) {
    base = { origin: url.origin, path: url.pathname.replace(/\/+$/, '') }
    bases.set(url, base)
  }
  return base
}

/** A path value of `.` or `..` is encoded, so no argument can climb out of the template. */
function neutralizeDotSegments(path: string): string {
  if (!path.includes('.')) return path
  return path
    .split('/')
    .map((segment) => (segment === '.' || segment === '..' ? segment.replaceAll('.', '%2E') : segment))
    .join('/')
}

/** The base URL of a service: configured upstream, else the tool's or the service's first absolute server. */
export function resolveBaseUrl(
  tool: Tool,
  service: Service,
  configured: string | undefined,
): URL | undefined {
  return resolved(tool, service, configured).url
}

/**
 * The origin of the service itself: its configured upstream, else its spec's first absolute
 * server. A tool whose base URL has another origin (a path's or operation's `servers`) is sent
 * no credentials of the service unless the operator allows that origin (execute-tool.ts).
 */
export function serviceOrigin(
  tool: Tool,
  service: Service,
  configured: string | undefined,
): string | undefined {
  return resolved(tool, service, configured).serviceOrigin
}

/** Parsed once per tool, service and configured upstream, not on every call. */
function resolved(tool: Tool, service: Service, configured: string | undefined): BaseUrls {
  const cached = baseUrls.get(tool)
  if (cached && cached.service === service && cached.configured === configured) return cached
  const entry: BaseUrls = {
    service,
    configured,
    url: parseBaseUrl(tool, service, configured),
    serviceOrigin: firstOrigin([configured, ...service.servers]),
  }
  baseUrls.set(tool, entry)
  return entry
}

interface BaseUrls {
  readonly service: Service
  readonly configured: string | undefined
  readonly url: URL | undefined
  readonly serviceOrigin: string | undefined
}

const baseUrls = new WeakMap<Tool, BaseUrls>()

function parseBaseUrl(tool: Tool, service: Service, configured: string | undefined): URL | undefined {
  for (const candidate of [configured, ...(tool.servers ?? []), ...service.servers]) {
    if (!candidate) continue
    try {
      const url = new URL(candidate)
      if (url.protocol === 'http:' || url.protocol === 'https:') return url
    } catch {
      // a relative server ("/v1") cannot be called without a configured upstream
    }
  }
  return undefined
}

/** Whether a null body argument is a value to send: required (the schema admitted null), and sent as JSON. */
function sendsNull(tool: Tool, key: string): boolean {
  const required = tool.inputSchema.required
  return Array.isArray(required) && required.includes(key) && isJson(tool.binding.bodyContentType ?? '')
}
