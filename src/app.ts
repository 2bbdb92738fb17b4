import { randomUUID } from 'node:crypto'
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import access from '../plugins/access.js'
import catalogStore from '../plugins/catalog-store.js'
import configPlugin from '../plugins/config.js'
import cors from '../plugins/cors.js'
import explorer from '../plugins/explorer.js'
import manifest from '../plugins/manifest.js'
import mcp from '../plugins/mcp.js'
import metrics from '../plugins/metrics.js'
import opal from '../plugins/opal.js'
import openai from '../plugins/openai.js'
import openapi from '../plugins/openapi.js'
import ops from '../plugins/ops.js'
import search from '../plugins/search.js'
import sessions from '../plugins/sessions.js'
import toolRanker from '../plugins/tool-ranker.js'
import tools from '../plugins/tools.js'
import tracing, { type TracingHooks } from '../plugins/tracing.js'
import type { SourceReader } from './catalog/index.js'
import type { GatewayConfig } from './config/load-config.js'
import { errors } from './errors.js'
import { parseJsonBody } from './util/parse-json-body.js'
import { redactUrl } from './util/redact-url.js'

export interface AppOptions {
  readonly config: GatewayConfig
  /** Where spec files are read from (builds then run in-process); absent: the disk, in a build process. */
  readonly reader?: SourceReader
  readonly logger?: FastifyServerOptions['logger']
  /** Tests only: MCP answers every request through the SDK (the reference of its fast path). */
  readonly mcpSdkOnly?: boolean
  /** Tracing as started (startTracing) when it is on: the server spans' plugin, the lost spans' count. */
  readonly tracing?: TracingHooks | undefined
}

/** Larger request headers get 431. */
const MAX_HEADER_BYTES = 16_384
/**
 * Node checks the header and request timeouts of its connections only this often (30 s by
 * default): a slowloris client was held 43 s against a 20 s bound, and 73 s against 60 s (issue
 * 41 class 9). A check a second keeps each bound within a second; a quarter of a shorter bound.
 */
const CONNECTIONS_CHECK_MS = 1_000
const PLUGIN_TIMEOUT_MARGIN_MS = 10_000 // 10 s besides the catalog build, for the other plugins
/** Longer than a load balancer's idle timeout (nginx and AWS ALB: 60 s), so the balancer closes first. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000

/** An inbound X-Request-Id is kept only when it is short and plain (it ends up in logs). */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/

/** A path parameter (a tool ID, a session code) longer than this gets 414. */
const MAX_PARAM_LENGTH = 512

/** A 404 names the path it did not find, cut to this. */
const ECHOED_PATH_CHARS = 200

/** Credentials never reach a log line (SPEC §5); session codes in URLs neither (`redactUrl`). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
]

/** Builds the gateway: registers every plugin, never listens (server.ts does). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const logger = loggerOptions(options.logger, config.logLevel)
  const app = Fastify({
    logger,
    trustProxy: config.trustProxy,
    // Limits and timeouts are explicit (SPEC §5): Fastify's requestTimeout defaults to 0 (never).
    bodyLimit: config.bodyLimit,
    requestTimeout: config.server.requestTimeoutMs,
    // The first catalog build is bounded by limits.buildTimeoutMs (60 s): Fastify's 10 s plugin
    // timeout stopped a start that bound allows (the 3,845-tool real-world corpus took 29 s on a
    // busy two-core machine). The margin covers the plugins around it.
    pluginTimeout: config.build.timeoutMs + PLUGIN_TIMEOUT_MARGIN_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      maxHeaderSize: MAX_HEADER_BYTES,
      headersTimeout: config.server.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(
        CONNECTIONS_CHECK_MS,
        Math.floor(config.server.headersTimeoutMs / 4),
      ),
    },
    // `/discovery/` must answer like `/discovery` (Opal registration with a trailing slash); tool
    // IDs such as `k8s:get:/api/v1/namespaces/{namespace}/pods` are long path parameters.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // Malformed percent-encodings and overlong path parameters: our error shape, the URL not echoed.
    frameworkErrors: answerFrameworkError,
    // Unknown keys in a request body are an error the caller should see, not silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
    genReqId: (request) => {
      const inbound = request.headers['x-request-id']
      return typeof inbound === 'string' && REQUEST_ID_PATTERN.test(inbound) ? inbound : randomUUID()
    },
  })
  limitConnections(app, config.server.maxConnections)
  app.setErrorHandler(handleError)
  // Fastify's own parser, with messages that say what was wrong (the MCP route keeps its own).
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const parsed = parseJsonBody(body as string)
    if (parsed.ok) done(null, parsed.value)
    else done(new errors.requestBodyInvalid(parsed.problem), undefined)
  })
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    const error = new errors.notFound(
      request.method,
      path.length > ECHOED_PATH_CHARS ? `${path.slice(0, ECHOED_PATH_CHARS)}…` : path,
    )
    reply.code(404).send({ error: error.message, code: error.code })
  })
  // First: the instrumentation wraps the routes registered after it.
  await app.register(tracing, { started: options.tracing })
  await app.register(configPlugin, { config })
  await app.register(openapi)
  await app.register(cors)
  await app.register(catalogStore, options.reader ? { reader: options.reader } : {})
  await app.register(metrics)
  await app.register(toolRanker)
  await app.register(sessions)
  // Before every route with `config.access` (ops' /catalog included): access adds its hook to those routes as they are registered.
  await app.register(access)
  await app.register(ops)
  await app.register(opal)
  await app.register(openai)
  await app.register(tools)
  await app.register(search)
  await app.register(mcp, { sdkOnly: options.mcpSdkOnly === true })
  await app.register(manifest)
  await app.register(explorer)
  return app
}

/** How often a dropped connection is logged at most: a flood must not flood the log too. */
const DROP_LOG_INTERVAL_MS = 10_000

/**
 * limits.connections: Node closes each connection past it as it is accepted, before a byte is read
 * (no HTTP answer: there is no request yet). Said in the log, at most every 10 s with a count.
 */
function limitConnections(app: FastifyInstance, max: number): void {
  app.server.maxConnections = max
  let dropped = 0
  let lastLog = 0
  app.server.on('drop', () => {
    dropped++
    const now = Date.now()
    if (now - lastLog < DROP_LOG_INTERVAL_MS) return
    lastLog = now
    app.log.warn(
      { dropped, maxConnections: max },
      'connections over limits.connections were closed as they were accepted',
    )
    dropped = 0
  })
}

/**
 * One JSON error shape `{ error, code, … }`; a 5xx never shows its message or stack to the client.
 * Fastify's own 4xx (a body too large, an unsupported media type) keep their status.
 */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    const tooLarge = new errors.requestBodyTooLarge(request.routeOptions.bodyLimit ?? 'the limit of')
    return reply.code(413).send({ error: tooLarge.message, code: tooLarge.code })
  }
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    const internal = new errors.internal()
    return reply.code(status).send({ error: internal.message, code: internal.code })
  }
  const body: Record<string, unknown> = { error: error.message, code: error.code }
  if (error.validation)
    body.details = error.validation.map((v) => ({ path: v.instancePath, message: v.message }))
  return reply.code(status).send(body)
}

/** Whatever logger a caller asks for, credentials and session codes stay out of its lines. */
function loggerOptions(given: FastifyServerOptions['logger'], level: string): FastifyServerOptions['logger'] {
  if (given === false) return false
  const base = typeof given === 'object' && given !== null ? given : { level }
  return {
    ...base,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { ...base.serializers, req: serializeRequest },
  }
}

/** Errors raised before a route is found: never the URL echoed back, never a 5xx. */
function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const refusal =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new errors.requestUrlTooLong(MAX_PARAM_LENGTH)
      : error.code === 'FST_ERR_BAD_URL'
        ? new errors.requestUrlInvalid()
        : undefined
  if (!refusal) return handleError(error, request, reply)
  request.log.info({ code: refusal.code }, 'request refused before routing')
  return reply.code(refusal.statusCode ?? 400).send({ error: refusal.message, code: refusal.code })
}

/** Fastify's request log fields, with the URL redacted (session codes are bearer secrets). */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }
}
