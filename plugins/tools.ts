import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Agent } from 'undici'
import { allowedOrigins } from '../src/catalog/server-origin.js'
import type { GatewayConfig } from '../src/config/load-config.js'
import { errors } from '../src/errors.js'
import {
  createExecutor,
  createUpstreamClient,
  type Executor,
  type ServiceSettings,
  type ToolCall,
  type ToolOutcome,
  type UpstreamClient,
} from '../src/executor/index.js'
import { DEFAULT_WORKFLOW_SETTINGS, withWorkflows } from '../src/executor/workflow/workflow-executor.js'
import { createRedisTokenStore, createUpstreamTokens, type UpstreamTokens } from '../src/identity/index.js'
import { traceExecutor } from '../src/tracing/tool-span.js'
import { isRecord } from '../src/util/is-record.js'
import { logsInfo } from '../src/util/log-level.js'
import { PACKAGE_VERSION } from '../src/version.js'
import { callerName } from './access.js'

declare module 'fastify' {
  interface FastifyInstance {
    executor: Executor
    upstreamClient: UpstreamClient
  }
}

const DEFAULTS = {
  connectTimeoutMs: 5_000, // 5 s
  timeoutMs: 30_000, // 30 s, Opal's debugger gives up then too
  maxResponseBytes: 10 * 1024 * 1024, // 10 MiB
  connectionsPerOrigin: 64,
  failureThreshold: 5,
  cooldownMs: 30_000, // 30 s
  tokenTimeoutMs: 10_000, // 10 s for a whole token request
}

/** Token requests are rare (one per token lifetime): a few connections per endpoint suffice. */
const TOKEN_CONNECTIONS_PER_ORIGIN = 4

/** Opal's envelope keys besides `parameters` (protocols.md §1). */
const OPAL_ENVELOPE = new Set(['parameters', 'auth', 'environment', 'chat_metadata'])

interface ToolRoute {
  Params: { name: string }
  Querystring: { dryRun?: unknown }
  Body: unknown
}

/** `?dryRun=` values (issue 19); anything else, a repeated or an empty one, is a 400. */
const DRY_RUN: Readonly<Record<string, boolean>> = { true: true, 1: true, false: false, 0: false }

/**
 * `POST /tools/:name` — the endpoint discovery advertises — and `/discovery/tools/:name`, where
 * Opal lands when the discovery URL was registered with a trailing slash (protocols.md §1).
 */
async function tools(fastify: FastifyInstance) {
  const client = createUpstreamClient(clientOptions(fastify.config))
  fastify.addHook('onClose', () => client.close())
  const tokens = upstreamTokens(fastify)
  const operations = createExecutor({
    client,
    credentials: fastify.config.credentials,
    clientCredentials: fastify.config.clientCredentials,
    tokenExchanges: fastify.config.tokenExchanges,
    services: serviceSettings(fastify.config),
    policies: fastify.config.file.policies ?? [],
    userAgent: `toolgate/${PACKAGE_VERSION}`,
    ...(fastify.config.file.limits?.argumentDepth
      ? { argumentDepth: fastify.config.file.limits.argumentDepth }
      : {}),
    observe: (call) => fastify.gatewayMetrics.upstreamCall(call),
    tokens,
  })
  const untraced = withWorkflows(operations, {
    current: () => fastify.catalogStore.current(),
    policies: fastify.config.file.policies ?? [],
    settings: { ...DEFAULT_WORKFLOW_SETTINGS, ...fastify.config.file.workflows },
    ...(fastify.config.file.limits?.argumentDepth
      ? { argumentDepth: fastify.config.file.limits.argumentDepth }
      : {}),
  })
  const executor = fastify.tracingEnabled ? traceExecutor(untraced) : untraced
  fastify.decorate('upstreamClient', client)
  fastify.decorate('executor', executor)

  const call = async (request: FastifyRequest<ToolRoute>, reply: FastifyReply) => {
    const dryRun = readDryRun(request.query.dryRun)
    const snapshot = fastify.catalogStore.current()
    const tool = snapshot.findTool(request.params.name)
    if (!tool) throw new errors.toolNotFound(request.params.name)
    const { caller } = request
    const client = callerName(caller)
    const refused = fastify.access.refusal(
      caller,
      snapshot.catalog,
      tool,
      request.headers['x-toolgate-approval'],
    )
    if (refused) {
      fastify.gatewayMetrics.accessRefused(client, 'not_allowed')
      request.log.info({ tool: tool.id, client, code: refused.code }, 'tool call refused')
      return reply.code(403).send({ error: refused.message, code: refused.code })
    }
    const body = readCallBody(request.body)
    if (!body) throw new errors.toolBodyInvalid()
    const approval = request.headers['x-toolgate-approval']
    // One object per call, the cancellation in it only when the call is sent (no spreads per call).
    const toolCall: ToolCall = {
      tool,
      arguments: body.arguments,
      requestId: request.id,
      client,
      clientId: caller.kind === 'client' ? caller.client.id : undefined,
      callerJwt: caller.kind === 'client' ? caller.jwt : undefined,
      accessToken: body.accessToken,
      approval: typeof approval === 'string' ? approval : undefined,
      signal: dryRun ? undefined : clientGone(reply),
    }
    const scope = { service: snapshot.serviceOf(tool), validator: snapshot.validator }
    // A dry run is no call: not counted in toolgate_tool_calls_total, nothing upstream to observe.
    if (dryRun) {
      const outcome = await executor.dryRun(toolCall, scope)
      const logged = outcome.kind === 'refusal' ? { status: outcome.status, code: outcome.body.code } : {}
      request.log.info({ tool: tool.id, client, dryRun: true, ...logged }, 'tool dry run')
      if (outcome.kind === 'refusal') return sendOutcome(reply, outcome)
      const { request: upstreamRequest, approvalRequired, approved, credentials, workflow } = outcome
      return reply.send({
        dryRun: true,
        tool: tool.wireName,
        request: upstreamRequest,
        credentials,
        approvalRequired,
        approved,
        ...(workflow ? { workflow } : {}),
      })
    }
    fastify.gatewayMetrics.toolCalled(client, 'rest')
    const outcome = await executor.execute(toolCall, scope)
    // Built only when it is written: at the production level (warn) a call logs nothing.
    if (logsInfo(request.log)) request.log.info({ ...summary(tool.id, outcome), client }, 'tool call')
    return sendOutcome(reply, outcome)
  }
  fastify.post<ToolRoute>('/tools/:name', { config: { access: 'call' } }, call)
  fastify.post<ToolRoute>('/discovery/tools/:name', { config: { access: 'call' } }, call)
}

/** `?dryRun=true` (or `1`) asks for the upstream request instead of sending it. */
function readDryRun(value: unknown): boolean {
  if (value === undefined) return false
  if (typeof value === 'string' && Object.hasOwn(DRY_RUN, value)) return DRY_RUN[value] === true
  throw new errors.toolDryRunInvalid()
}

/**
 * Cancelled when the caller disconnects before the answer is sent. Not `request.signal`: Fastify
 * aborts that as soon as a POST body has been read (fastify/fastify#6725, open), so it would
 * cancel every upstream call; the response's `close` before `finish` is the real disconnect.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const gone = new AbortController()
  const response = reply.raw
  response.once('close', () => {
    if (!response.writableFinished) gone.abort(new Error('the caller went away'))
  })
  return gone.signal
}

/**
 * Opal wraps arguments as `{ parameters, auth?, environment?, chat_metadata? }`; debuggers and
 * direct calls send them flat. Wrapped means: `parameters` is an object and every other key is
 * one of Opal's — so a tool with a real argument named `parameters` still works flat.
 */
export function readCallBody(
  body: unknown,
): { arguments: Record<string, unknown>; accessToken?: string } | undefined {
  if (body === undefined || body === null) return { arguments: {} }
  if (!isRecord(body)) return undefined
  const wrapped = isRecord(body.parameters) && Object.keys(body).every((key) => OPAL_ENVELOPE.has(key))
  if (!wrapped) return { arguments: body }
  const auth = isRecord(body.auth) && isRecord(body.auth.credentials) ? body.auth.credentials : {}
  const token =
    typeof auth.access_token === 'string' && auth.access_token !== '' ? auth.access_token : undefined
  return { arguments: body.parameters as Record<string, unknown>, ...(token ? { accessToken: token } : {}) }
}

/** Sent with every answer: upstream bytes are never sniffed, never run as a page of the gateway's origin. */
const RELAYED = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
}

/**
 * The upstream's status and body as they are; binary wrapped in base64 with its content type.
 * JSON keeps its JSON type (the first, should the upstream repeat the header: a browser reads the
 * last one); any other text goes out as text/plain, its own type in X-Toolgate-Upstream-Content-Type,
 * so HTML, XML or script from an upstream is data, never the gateway's own page (issue 41 class 6).
 */
export function sendOutcome(reply: FastifyReply, outcome: ToolOutcome): FastifyReply {
  reply.code(outcome.status)
  reply.headers(outcome.headers)
  if (outcome.kind === 'refusal') return reply.header('x-content-type-options', 'nosniff').send(outcome.body)
  reply.headers(RELAYED)
  const { body } = outcome
  switch (body.type) {
    case 'empty':
      return reply.send()
    case 'json':
      return reply.type(firstValue(body.contentType)).send(body.bytes)
    case 'text':
      return reply
        .type('text/plain; charset=utf-8')
        .header('x-toolgate-upstream-content-type', body.contentType)
        .send(body.text)
    case 'binary':
      return reply.send({
        contentType: body.contentType,
        encoding: 'base64',
        bytes: body.bytes,
        data: body.base64,
      })
  }
}

/** `application/json, text/html` (a repeated header, joined) is `application/json`. */
function firstValue(contentType: string): string {
  const comma = contentType.indexOf(',')
  return comma === -1 ? contentType : contentType.slice(0, comma).trim()
}

function summary(toolId: string, outcome: ToolOutcome) {
  if (outcome.kind === 'refusal') return { tool: toolId, status: outcome.status, code: outcome.body.code }
  return { tool: toolId, status: outcome.status, upstream: outcome.origin, attempts: outcome.attempts }
}

function clientOptions(config: GatewayConfig) {
  const upstream = config.file.upstream ?? {}
  return {
    connectTimeoutMs: upstream.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    timeoutMs: upstream.timeoutMs ?? DEFAULTS.timeoutMs,
    maxResponseBytes: upstream.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    connectionsPerOrigin: upstream.connectionsPerOrigin ?? DEFAULTS.connectionsPerOrigin,
    breaker: {
      failureThreshold: upstream.breaker?.failureThreshold ?? DEFAULTS.failureThreshold,
      cooldownMs: upstream.breaker?.cooldownMs ?? DEFAULTS.cooldownMs,
    },
  }
}

/**
 * OAuth2 tokens the gateway fetches (issue 45): their own connection pool, so a token endpoint
 * never takes an upstream's connections; shared between replicas through Redis when there is one.
 */
function upstreamTokens(fastify: FastifyInstance): UpstreamTokens {
  const upstream = fastify.config.file.upstream ?? {}
  const dispatcher = new Agent({
    connect: { timeout: upstream.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs },
    connections: TOKEN_CONNECTIONS_PER_ORIGIN,
  })
  fastify.addHook('onClose', () => dispatcher.close())
  return createUpstreamTokens({
    dispatcher,
    timeoutMs: upstream.tokenTimeoutMs ?? DEFAULTS.tokenTimeoutMs,
    shared: fastify.hasDecorator('redis')
      ? createRedisTokenStore(fastify.redis, `${fastify.config.redisKeyPrefix}tokens:`)
      : undefined,
    observe: (record) => fastify.gatewayMetrics.tokenRequest(record),
  })
}

function serviceSettings(config: GatewayConfig): Record<string, ServiceSettings> {
  return Object.fromEntries(
    Object.entries(config.file.services ?? {}).map(([id, service]) => [
      id,
      {
        ...(service.upstream ? { upstream: service.upstream } : {}),
        ...(service.timeoutMs ? { timeoutMs: service.timeoutMs } : {}),
        ...(service.opal?.forwardAccessToken ? { forwardAccessToken: true } : {}),
        ...(service.allowOrigins ? { allowOrigins: allowedOrigins(service.allowOrigins) } : {}),
        ...(service.requireClientCredentials ? { requireClientCredentials: true } : {}),
        ...(service.forwardCallerToken ? { forwardCallerToken: true } : {}),
      },
    ]),
  )
}

export default fp(tools, { name: 'tools', dependencies: ['catalog-store', 'config', 'metrics', 'access'] })
