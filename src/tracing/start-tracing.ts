import { type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api'
import type { tracing } from '@opentelemetry/sdk-node'
import type { FastifyPluginCallback, FastifyRequest } from 'fastify'
import { redactUrl } from '../util/redact-url.js'
import { countingExporter } from './counting-exporter.js'

type Env = Readonly<Record<string, string | undefined>>

/** Where the tracing's own warnings go: stderr until the gateway's logger is attached. */
export interface TracingLog {
  warn(fields: Record<string, unknown>, message: string): void
}

/** Tracing as started: the Fastify instrumentation to register, and the bounded shutdown. */
export interface Tracing {
  /** @fastify/otel's plugin: registered first, it makes the server span of every route. */
  readonly plugin: FastifyPluginCallback
  /** Spans the collector never got: their export failed or timed out (counted, not retried). */
  droppedSpans(): number
  /** The SDK's and the exporter's warnings go to this logger from now on. */
  useLog(log: TracingLog): void
  /** Flushes what is queued and stops, within `boundMs` whatever the collector does. */
  shutdown(boundMs: number): Promise<void>
}

/** The protocols OTLP defines; http/protobuf is the specification's default. */
const EXPORTERS: Record<string, () => Promise<new () => tracing.SpanExporter>> = {
  'http/protobuf': async () => (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter,
  'http/json': async () => (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter,
  grpc: async () => (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter,
}

/** How an OTLP protocol is named wrong: the error names the variable and the values it takes. */
export class TracingConfigError extends Error {}

/**
 * Starts the OpenTelemetry Node SDK, loaded here and only here (dynamic imports: with tracing off
 * none of it is in memory). Everything else is the standard `OTEL_*` variables the SDK reads
 * itself — sampler, batch sizes, export timeout, headers, resource, propagators — with two
 * defaults of ours: the service is `toolgate`, and only W3C trace context is propagated
 * (`baggage` too when OTEL_PROPAGATORS names it: a caller's baggage would reach every upstream).
 * Traces only, over OTLP: metrics stay on /metrics (Prometheus), logs on stdout. `env` decides the
 * protocol and our defaults; the SDK and the exporter read the rest from `process.env` themselves.
 */
export async function startTracing(env: Env): Promise<Tracing> {
  // The traces-specific variable wins, as the specification says; an empty one counts as unset.
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL'
  const protocol = env[variable]?.trim() || 'http/protobuf'
  const loadExporter = EXPORTERS[protocol]
  if (!loadExporter)
    throw new TracingConfigError(
      `${variable} is ${JSON.stringify(protocol)}: use http/protobuf, http/json or grpc`,
    )
  const [{ NodeSDK, core }, { FastifyOtelInstrumentation }, Exporter] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@fastify/otel'),
    loadExporter(),
  ])
  const sink = createLogSink()
  const exporter = countingExporter(new Exporter(), (spans, error) =>
    sink.log().warn({ spans, error: error?.message }, 'trace export failed: spans dropped'),
  )
  const instrumentation = new FastifyOtelInstrumentation({
    instrumentHooks: false, // one span per hook would multiply the spans of a call by ten
    instrumentHandler: false, // the handler runs in the server span's context without its own span
    recordExceptions: false, // an error's message can quote the caller's body (plugins/tracing.ts)
    requestHook: nameServerSpan,
  })
  const sdk = new NodeSDK({
    traceExporter: exporter,
    instrumentations: [instrumentation],
    metricReaders: [],
    logRecordProcessors: [],
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'toolgate' }),
    ...(env.OTEL_PROPAGATORS ? {} : { textMapPropagator: new core.W3CTraceContextPropagator() }),
  })
  sdk.start()
  // OTEL_LOG_LEVEL asks for the SDK's own console diagnostics; otherwise its warnings are ours.
  if (!env.OTEL_LOG_LEVEL) diag.setLogger(sink, DiagLogLevel.WARN)
  return {
    plugin: instrumentation.plugin(),
    droppedSpans: exporter.dropped,
    useLog: sink.use,
    shutdown: (boundMs) => bounded(sdk.shutdown(), boundMs),
  }
}

/**
 * The server span as the HTTP conventions name it (`{method} {http.route}`), its `url.path` without
 * the query and with session codes redacted (@fastify/otel records the raw URL), and the request's
 * log lines joined to it: every line logged from here on carries `trace_id` and `span_id`.
 */
function nameServerSpan(
  span: {
    updateName(name: string): unknown
    setAttribute(key: string, value: string): unknown
    spanContext(): { traceId: string; spanId: string }
  },
  request: FastifyRequest,
): void {
  const route = request.routeOptions.url
  span.updateName(route ? `${request.method} ${route}` : request.method)
  span.setAttribute('url.path', redactUrl(request.url.split('?')[0] ?? ''))
  const { traceId, spanId } = span.spanContext()
  // pino's setBindings: request.log and reply.log are the one child logger of this request.
  const log = request.log as { setBindings?: (bindings: Record<string, string>) => void }
  log.setBindings?.({ trace_id: traceId, span_id: spanId })
}

/** The SDK's diagnostics as log lines: stderr until the gateway's logger is attached. */
function createLogSink(): DiagLogger & { use(log: TracingLog): void; log(): TracingLog } {
  let log: TracingLog = {
    warn: (fields, message) => process.stderr.write(`${JSON.stringify({ ...fields, msg: message })}\n`),
  }
  // The SDK hands errors over as their JSON (stack included): the message is what a log line needs.
  const warn = (message: string, ...args: unknown[]) =>
    log.warn({}, `opentelemetry: ${[message, ...args].map(messageOf).join(' ').slice(0, 500)}`)
  const ignore = () => undefined
  return {
    use: (next) => {
      log = next
    },
    log: () => log,
    error: warn,
    warn,
    info: ignore,
    debug: ignore,
    verbose: ignore,
  }
}

function messageOf(value: unknown): string {
  if (value instanceof Error) return value.message
  if (typeof value !== 'string' || !value.startsWith('{')) return String(value)
  try {
    const parsed = JSON.parse(value) as { message?: unknown }
    return typeof parsed.message === 'string' ? parsed.message : value
  } catch {
    return value
  }
}

/** Waits for `work`, at most `ms`: a collector that does not answer cannot hold the shutdown. */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
  })
  return Promise.race([work.catch(() => undefined), bound]).finally(() => clearTimeout(timer))
}
