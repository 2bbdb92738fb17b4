import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { addressGroup } from '../src/access/address-group.js'
import { describeAccess } from '../src/access/describe-access.js'
import { createFailureBudget } from '../src/access/failure-budget.js'
import {
  type AccessConfig,
  type Authentication,
  bearerChallenge,
  type Caller,
  type Client,
  type ClientScope,
  createAuthenticator,
  isKnownHost,
  isNamedOrigin,
  isOriginAllowed,
  protectedResourceMetadata,
  type RateLimit,
  type RefusalReason,
  requiredScopes,
  scopeOf,
} from '../src/access/index.js'
import { createRateLimitStore, type RateCount, SHARED_KEY_PREFIX } from '../src/access/rate-limit-store.js'
import type { Catalog, Tool } from '../src/catalog/types.js'
import { errors } from '../src/errors.js'

/**
 * What a route is, for access control (set as the route's `config.access`):
 * - `call`, `mcp`: tool calls and every MCP request — a client, in clients mode;
 * - `discovery`: anonymous, narrowed to what a client may call when a token comes with it;
 * - `operator`: /catalog and /catalog/reloads — a client with `operator: true`;
 * - `sessions`: session creation — a client with `sessions: true`.
 * Routes without it (`/health`, `/ready`, `/version`, `/metrics`, the well-known documents) are open.
 */
export type RouteAccess = 'call' | 'mcp' | 'discovery' | 'operator' | 'sessions'

declare module 'fastify' {
  interface FastifyInstance {
    access: Access
  }
  interface FastifyRequest {
    /** Who is calling; anonymous until a token proves a client. */
    caller: Caller
    /** Set on an MCP request over its budget: the MCP surface answers it in its own terms. */
    rateLimited: InstanceType<typeof errors.accessRateLimited> | undefined
  }
  interface FastifyContextConfig {
    access?: RouteAccess
  }
}

export interface Access {
  readonly config: AccessConfig
  /** The catalog as the caller sees it: views narrowed to what a client may call. */
  catalogFor(caller: Caller, catalog: Catalog): Catalog
  /**
   * Why the caller may not make this call, or undefined: a client calls only its tools, and grants
   * approval (X-Toolgate-Approval) only to those it may approve. The header on a tool that needs
   * no approval changes nothing and is not checked.
   */
  refusal(
    caller: Caller,
    catalog: Catalog,
    tool: Tool,
    approval: unknown,
  ): { message: string; code: string } | undefined
}

/** The caller as a log field and metrics label: its client id, or `anonymous`. */
export function callerName(caller: Caller): string {
  return caller.kind === 'client' ? caller.client.id : 'anonymous'
}

const ORIGIN_CHECKED = new Set<RouteAccess>(['call', 'mcp', 'sessions'])
const CLIENTS_ONLY = new Set<RouteAccess>(['call', 'mcp', 'operator'])
const WELL_KNOWN = '/.well-known/oauth-protected-resource'

/** undefined: the request goes on; a promise when the answer needs I/O (a token's keys, Redis). */
type Verdict = Refusal | undefined | Promise<Refusal | undefined>

interface Refusal {
  readonly reason: RefusalReason
  readonly client: string
  readonly error: { readonly message: string; readonly code: string; readonly statusCode?: number }
  /** 401s and insufficient_scope 403s carry a WWW-Authenticate challenge. */
  readonly challenge?: { error?: 'invalid_token' | 'insufficient_scope'; scope?: readonly string[] }
}

/**
 * Access control (issue 13): authenticates callers (static bearer tokens, JWTs from OIDC issuers),
 * checks each route's `config.access`, the browser Origin and the caller's rate limit, and serves
 * the OAuth protected resource metadata (RFC 9728) MCP clients discover issuers with.
 */
/** A catalog's tools by ID, made once per catalog (a workflow's access check looks its steps up on every call). */
const byId = new WeakMap<Catalog, ReadonlyMap<string, Tool>>()
function toolsById(catalog: Catalog): ReadonlyMap<string, Tool> {
  let tools = byId.get(catalog)
  if (!tools) {
    tools = new Map(catalog.tools.map((tool) => [tool.id, tool]))
    byId.set(catalog, tools)
  }
  return tools
}

async function access(fastify: FastifyInstance) {
  const { access: config, redisKeyPrefix } = fastify.config
  const authenticator = createAuthenticator(config.clients)
  const sessionCreators = config.clients.some((client) => client.sessions)
  const scopeFor = (caller: Caller, catalog: Catalog): ClientScope | undefined =>
    config.mode === 'open' || caller.kind !== 'client' ? undefined : scopeOf(catalog, caller.client)
  fastify.decorate<Access>('access', {
    config,
    catalogFor: (caller, catalog) => scopeFor(caller, catalog)?.catalog ?? catalog,
    refusal(caller, catalog, tool, approval) {
      const scope = scopeFor(caller, catalog)
      if (!scope) return undefined
      if (!scope.mayCall(tool)) return new errors.accessToolNotAllowed(callerName(caller), tool.wireName)
      if (tool.safety.requiresApproval && approval !== undefined && !scope.mayApprove(tool))
        return new errors.accessApprovalNotAllowed(callerName(caller), tool.wireName)
      // A workflow calls its steps' tools for the caller: each must be one the caller may call (and approve).
      for (const id of tool.workflow?.toolIds ?? []) {
        const step = toolsById(catalog).get(id)
        if (step && !scope.mayCall(step))
          return new errors.accessToolNotAllowed(callerName(caller), step.wireName)
        if (step?.safety.requiresApproval && approval !== undefined && !scope.mayApprove(step))
          return new errors.accessApprovalNotAllowed(callerName(caller), step.wireName)
      }
      return undefined
    },
  })
  // Set by the onRequest hook on every route with config.access; nothing else reads it.
  fastify.decorateRequest<Caller | null>('caller', null)
  fastify.decorateRequest('rateLimited', undefined)

  // Our own counter (src/access/rate-limit-store.ts): an address counted in memory is counted
  // synchronously, with no promise per request (issue 20's profile of a 304).
  const counter = createRateLimitStore({
    ...(fastify.hasDecorator('redis') ? { redis: fastify.redis } : {}),
    prefix: `${redisKeyPrefix}ratelimit:`,
    clientKeys: config.clients.map((client) => `${SHARED_KEY_PREFIX}${client.id}`),
    warn: (message) => fastify.log.warn(message),
  })
  const failures = config.failedAuthenticationLimit && createFailureBudget(config.failedAuthenticationLimit)
  const logLine = createRefusalLogBudget()

  /** Who the caller is and whether the route admits it; a promise only when a token must be checked. */
  const admit = (request: FastifyRequest, reply: FastifyReply, route: RouteAccess): Verdict => {
    request.caller = { kind: 'anonymous', address: request.ip }
    const origin = request.headers.origin
    if (ORIGIN_CHECKED.has(route) && !isOriginAllowed(origin, config))
      return {
        reason: 'origin',
        client: 'anonymous',
        error: new errors.accessOriginRefused(String(origin).slice(0, 100)),
      }
    if (config.mode === 'open' && route === 'operator') return operatorOrigin(request, reply)
    if (config.mode === 'open' && route !== 'sessions') return undefined
    if (config.mode === 'closed' && CLIENTS_ONLY.has(route))
      return { reason: 'closed', client: 'anonymous', error: new errors.accessClosed() }
    // Set by the gate when a try is taken from the address's failures (issue 41).
    let tried: string | undefined
    const gate =
      failures &&
      (() => {
        tried = addressGroup(request.ip)
        const wait = failures.take(tried)
        if (wait > 0) reply.header('Retry-After', wait)
        return wait === 0
      })
    return authenticator.authenticate(request.headers.authorization, gate).then((authentication) => {
      if (authentication.kind === 'unjudged') return failuresSpent(request, reply)
      if (tried !== undefined && (authentication.kind === 'client' || isKeysUnavailable(authentication)))
        failures!.refund(tried)
      if (authentication.kind === 'refused') return tokenRefusal(authentication)
      if (authentication.kind === 'client')
        request.caller = {
          kind: 'client',
          client: authentication.client,
          ...(authentication.scopes ? { scopes: authentication.scopes } : {}),
          ...(authentication.jwt ? { jwt: authentication.jwt } : {}),
        }
      return authorize(route, request.caller)
    })
  }

  /**
   * Over the failures budget (issue 41): 429, the token not judged (Retry-After was set when the
   * try was refused). The gate takes a try only when a token costs more than a digest or a cache
   * lookup; a try that proved a client, or met an issuer whose keys are down, is given back, so
   * only failures stay counted.
   */
  const failuresSpent = (request: FastifyRequest, reply: FastifyReply): Refusal => {
    const limit = config.failedAuthenticationLimit!
    return {
      reason: 'rate_limited',
      client: 'unknown',
      error: new errors.accessRateLimited(
        `address ${addressGroup(request.ip)}`,
        `${limit.max} failed authentications per ${Math.round(limit.windowMs / 1000)} s; the token was not checked`,
        Number(reply.getHeader('Retry-After')),
      ),
    }
  }

  /**
   * Open mode's operator routes (issue 41): /catalog and /explorer/api/* hold every spec, server
   * URL and problem, and in open mode anyone may read them — but not any web page. They send no
   * `Access-Control-Allow-Origin: *`: a browser's cross-origin request is refused unless its
   * Origin is `publicUrl`'s or in `allowedOrigins` (then that origin is allowed, not `*`), or the
   * very origin the request was sent to (the explorer's own page; a same-origin GET usually sends
   * no Origin at all). Localhost on another port is refused too: it is any dev server the
   * developer runs. `allowedOrigins: ["*"]` keeps `*`, as it switches the Origin check off.
   */
  const operatorOrigin = (request: FastifyRequest, reply: FastifyReply): Refusal | undefined => {
    if (config.allowedOrigins === '*') return undefined
    reply.removeHeader('access-control-allow-origin')
    if (!isKnownHost(request.host, config))
      return {
        reason: 'origin',
        client: 'anonymous',
        error: new errors.accessHostRefused(JSON.stringify(String(request.host).slice(0, 100))),
      }
    reply.header('vary', 'Origin')
    const origin = request.headers.origin
    if (origin === undefined || origin === `${request.protocol}://${request.host}`) return undefined
    if (isNamedOrigin(origin, config)) {
      reply.header('access-control-allow-origin', origin)
      return undefined
    }
    return {
      reason: 'origin',
      client: 'anonymous',
      error: new errors.accessOriginRefused(String(origin).slice(0, 100)),
    }
  }

  const authorize = (route: RouteAccess, caller: Caller): Refusal | undefined => {
    const client = caller.kind === 'client' ? caller.client : undefined
    if (route === 'sessions') {
      if (client?.sessions) return undefined
      if (client)
        return {
          reason: 'not_allowed',
          client: client.id,
          error: new errors.accessSessionsNotAllowed(client.id),
        }
      if (sessionCreators) return noToken()
      if (config.mode === 'open') return undefined
      return config.mode === 'closed'
        ? { reason: 'closed', client: 'anonymous', error: new errors.accessClosed() }
        : noToken()
    }
    if (!CLIENTS_ONLY.has(route)) return undefined
    if (!client) return noToken()
    if (route === 'operator' && !client.operator)
      return { reason: 'not_allowed', client: client.id, error: new errors.accessOperatorOnly(client.id) }
    return undefined
  }

  /** The budget's RateLimit-* headers on every response; over it, a 429 (MCP answers it itself). */
  const limit = (request: FastifyRequest, reply: FastifyReply, route: RouteAccess): Verdict => {
    const { caller } = request
    const budget = caller.kind === 'client' ? caller.client.rateLimit : config.anonymousRateLimit
    if (!budget) return undefined
    // Counted in memory: at once, no promise; in Redis: later. An error rejects.
    const count = counter.count(rateKey(caller), budget.windowMs)
    if (count instanceof Promise) return count.then((now) => overBudget(request, reply, route, budget, now))
    return overBudget(request, reply, route, budget, count)
  }

  const overBudget = (
    request: FastifyRequest,
    reply: FastifyReply,
    route: RouteAccess,
    budget: RateLimit,
    count: RateCount,
  ): Refusal | undefined => {
    const ttlInSeconds = Math.ceil(count.ttl / 1000)
    // As strings: Node turns a number into one twice, to check it and to write it.
    reply.header('ratelimit-limit', String(budget.max))
    reply.header('ratelimit-remaining', String(Math.max(0, budget.max - count.current)))
    reply.header('ratelimit-reset', String(ttlInSeconds))
    if (count.current <= budget.max) return undefined
    const retryAfter = Math.max(1, ttlInSeconds)
    reply.header('Retry-After', retryAfter)
    const name = callerName(request.caller)
    const error = new errors.accessRateLimited(
      request.caller.kind === 'client' ? `client ${name}` : `address ${addressGroup(request.ip)}`,
      `${budget.max} requests per ${Math.round(budget.windowMs / 1000)} s`,
      retryAfter,
    )
    if (route !== 'mcp') return { reason: 'rate_limited', client: name, error }
    fastify.gatewayMetrics.accessRefused(name, 'rate_limited')
    request.rateLimited = error
    return undefined
  }

  const refuse = (request: FastifyRequest, reply: FastifyReply, refusal: Refusal) => {
    fastify.gatewayMetrics.accessRefused(refusal.client, refusal.reason)
    const suppressed = logLine(refusal.reason)
    if (suppressed !== false) {
      const level = refusal.reason === 'rate_limited' ? 'debug' : 'info'
      request.log[level](
        {
          client: refusal.client,
          reason: refusal.reason,
          code: refusal.error.code,
          ...(suppressed > 0 ? { suppressed } : {}),
        },
        'access refused',
      )
    }
    if (refusal.challenge) {
      reply.header(
        'WWW-Authenticate',
        bearerChallenge({
          ...(resourceMetadata ? { resourceMetadata } : {}),
          scope: refusal.challenge.scope ?? requiredScopes(config),
          ...(refusal.challenge.error ? { error: refusal.challenge.error } : {}),
          ...(refusal.challenge.error ? { description: refusal.error.message } : {}),
        }),
      )
    }
    return reply
      .code(refusal.error.statusCode ?? 403)
      .send({ error: refusal.error.message, code: refusal.error.code })
  }

  /**
   * Where the resource metadata is, named in every challenge: from `publicUrl` alone, never from
   * Host or X-Forwarded-Host, which any caller writes (issue 41 class 7). A JWT client needs
   * publicUrl (resolve-access.ts), so without it there is no issuer to discover and no pointer.
   */
  const issuers = config.clients.some((client) => client.proof.kind === 'jwt')
  const resourceMetadata = issuers && config.publicUrl ? `${config.publicUrl}${WELL_KNOWN}` : undefined

  /**
   * The onRequest hook of a route with `config.access`, added to that route alone (routes without
   * it pay nothing). Synchronous unless a token is checked or a budget counted in Redis; a refused
   * request ends with the refusal sent: `done` is not called for it.
   */
  const guard = (route: RouteAccess): onRequestHookHandler => {
    const limited = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const verdict = limit(request, reply, route)
      if (verdict === undefined) done()
      else if (!(verdict instanceof Promise)) refuse(request, reply, verdict)
      else verdict.then((refusal) => (refusal ? refuse(request, reply, refusal) : done()), done)
    }
    return (request, reply, done) => {
      const verdict = admit(request, reply, route)
      if (verdict === undefined) limited(request, reply, done)
      else if (!(verdict instanceof Promise)) refuse(request, reply, verdict)
      else
        verdict.then(
          (refusal) => (refusal ? refuse(request, reply, refusal) : limited(request, reply, done)),
          done,
        )
    }
  }
  fastify.addHook('onRoute', (routeOptions) => {
    const route = routeOptions.config?.access
    if (route === undefined) return
    const own = routeOptions.onRequest
    routeOptions.onRequest = own === undefined ? [guard(route)] : [own, guard(route)].flat()
  })

  // RFC 9728: the root document names the gateway; the path-suffixed one its MCP endpoint.
  for (const [url, suffix] of [
    [WELL_KNOWN, ''],
    [`${WELL_KNOWN}/mcp`, '/mcp'],
  ] as const) {
    // The same document for every caller: built from the configuration once, so it may be cached publicly.
    const metadata = config.publicUrl
      ? protectedResourceMetadata(config, `${config.publicUrl}${suffix}`)
      : undefined
    fastify.get(url, async (_request, reply) => {
      if (!metadata) {
        const error = new errors.notFound('GET', url)
        return reply.code(404).send({
          error: `${error.message}. No client uses an OAuth issuer (clients[].jwt), so there is no authorization server to name`,
          code: error.code,
        })
      }
      return reply.header('Cache-Control', 'public, max-age=300').send(metadata)
    })
  }

  fastify.addHook('onReady', async () => {
    const summary = describeAccess(config)
    if (summary.warning) fastify.log.warn(summary.warning)
    else
      fastify.log.info(
        { clients: config.clients.map((client) => client.id) },
        `access: ${summary.clients} clients`,
      )
    // In the background: an issuer that is down must not hold the start (static tokens and
    // discovery serve without it); its clients' tokens are refused until its keys arrive.
    void authenticator.warm().then((failures) => {
      for (const failure of failures)
        fastify.log.warn(`access: an issuer's keys could not be fetched at start: ${failure}`)
    })
  })
}

/** Refusal log lines per reason and second; the rest are counted, and the next line says how many. */
const REFUSAL_LINES_PER_SECOND = 10

/**
 * Refusals are logged at a bounded rate (issue 41): a flood of bad tokens was one log line each.
 * Per reason (a closed set), at most REFUSAL_LINES_PER_SECOND lines a second; the metric still
 * counts every refusal. Returns false for a line not to write, else how many were not written
 * since the last one of its reason.
 */
function createRefusalLogBudget(now: () => number = Date.now): (reason: RefusalReason) => number | false {
  const seconds = new Map<RefusalReason, { second: number; lines: number; suppressed: number }>()
  return (reason) => {
    const second = Math.floor(now() / 1000)
    let entry = seconds.get(reason)
    if (!entry) {
      entry = { second, lines: 0, suppressed: 0 }
      seconds.set(reason, entry)
    }
    if (entry.second !== second) {
      entry.second = second
      entry.lines = 0
    }
    if (entry.lines >= REFUSAL_LINES_PER_SECOND) {
      entry.suppressed++
      return false
    }
    entry.lines++
    const suppressed = entry.suppressed
    entry.suppressed = 0
    return suppressed
  }
}

function isKeysUnavailable(authentication: Authentication): boolean {
  return authentication.kind === 'refused' && authentication.reason === 'keys_unavailable'
}

/** Built only when refusing: an error captures a stack, too dear for every admitted request. */
function noToken(): Refusal {
  return { reason: 'no_token', client: 'anonymous', error: new errors.accessTokenMissing(), challenge: {} }
}

/** Each client's key, made once: a key built per request is a new string to hash at every count. */
const clientKeys = new WeakMap<Client, string>()

/**
 * A client's budget is counted under `client:<id>` (shared through Redis), an anonymous caller's
 * under its address (IPv6: its /64, see addressGroup). Behind a trusted proxy the address is whatever X-Forwarded-For said:
 * one that begins like a client's key is counted as `address:<it>`, so no caller can spend a
 * client's budget.
 */
function rateKey(caller: Caller): string {
  if (caller.kind !== 'client') {
    const group = addressGroup(caller.address)
    return group.startsWith(SHARED_KEY_PREFIX) ? `address:${group}` : group
  }
  let key = clientKeys.get(caller.client)
  if (key === undefined) {
    key = `${SHARED_KEY_PREFIX}${caller.client.id}`
    clientKeys.set(caller.client, key)
  }
  return key
}

function tokenRefusal(authentication: Extract<Authentication, { kind: 'refused' }>): Refusal {
  switch (authentication.reason) {
    case 'bad_token':
      return {
        reason: 'bad_token',
        client: 'unknown',
        error: new errors.accessTokenInvalid(authentication.message),
        challenge: { error: 'invalid_token' },
      }
    case 'keys_unavailable':
      return {
        reason: 'keys_unavailable',
        client: 'unknown',
        error: new errors.accessKeysUnavailable(authentication.message),
        challenge: { error: 'invalid_token' },
      }
    case 'unknown_client':
      return {
        reason: 'not_allowed',
        client: 'unknown',
        error: new errors.accessClientUnknown(authentication.message),
      }
    case 'insufficient_scope':
      return {
        reason: 'not_allowed',
        client: 'unknown',
        error: new errors.accessScopeInsufficient(authentication.message),
        challenge: { error: 'insufficient_scope', scope: authentication.scopes ?? [] },
      }
  }
}

export default fp(access, { name: 'access', dependencies: ['config', 'metrics', 'sessions'] })
