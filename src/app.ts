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
import manifest from '../plugins/manifest.js'
import mcp from '../plugins/mcp.js'
import metrics from '../plugins/metrics.js'
import opal from '../plugins/opal.js'
import openai from '../plugins/openai.js'
import openapi from '../plugins/openapi.js'
import ops from '../plugins/ops.js'
import sessions from '../plugins/sessions.js'
import tools from '../plugins/tools.js'
import type { SourceReader } from './catalog/index.js'
import type { GatewayConfig } from './config/load-config.js'
import { errors } from './errors.js'

export interface AppOptions {
  readonly config: GatewayConfig
  /** Where spec files are read from (builds then run in-process); absent: the disk, in a build worker. */
  readonly reader?: SourceReader
  readonly logger?: FastifyServerOptions['logger']
}

/** Larger request headers get 431. */
const MAX_HEADER_BYTES = 16_384
/** A client must send its headers within this (slowloris)… */
const HEADERS_TIMEOUT_MS = 20_000
/** …and its whole request within this; the response (a slow upstream) is bounded by the upstream timeout. */
const REQUEST_TIMEOUT_MS = 60_000
/** Longer than a load balancer's idle timeout (nginx and AWS ALB: 60 s), so the balancer closes first. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000

/** An inbound X-Request-Id is kept only when it is short and plain (it ends up in logs). */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/

/** Credentials never reach a log line (SPEC §5). */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
]

/** Builds the gateway: registers every plugin, never listens (server.ts does). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    trustProxy: config.trustProxy,
    // Limits and timeouts are explicit (SPEC §5): Fastify's requestTimeout defaults to 0 (never).
    bodyLimit: config.bodyLimit,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: HEADERS_TIMEOUT_MS },
    // `/discovery/` must answer like `/discovery` (Opal registration with a trailing slash); tool
    // IDs such as `k8s:get:/api/v1/namespaces/{namespace}/pods` are long path parameters.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    // Unknown keys in a request body are an error the caller should see, not silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
    genReqId: (request) => {
      const inbound = request.headers['x-request-id']
      return typeof inbound === 'string' && REQUEST_ID_PATTERN.test(inbound) ? inbound : randomUUID()
    },
  })
  app.setErrorHandler(handleError)
  app.setNotFoundHandler((request, reply) => {
    const error = new errors.notFound(request.method, request.url.split('?')[0])
    reply.code(404).send({ error: error.message, code: error.code })
  })
  await app.register(configPlugin, { config })
  await app.register(openapi)
  await app.register(cors)
  await app.register(catalogStore, options.reader ? { reader: options.reader } : {})
  await app.register(metrics)
  await app.register(sessions)
  await app.register(ops)
  await app.register(access)
  await app.register(opal)
  await app.register(openai)
  await app.register(tools)
  await app.register(mcp)
  await app.register(manifest)
  return app
}

/** One JSON error shape `{ error, code, … }`; a 5xx never shows its message or stack to the client. */
function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
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
