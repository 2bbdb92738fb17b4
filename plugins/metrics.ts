import type { FastifyInstance, onResponseHookHandler, RouteOptions } from 'fastify'
import fastifyMetrics from 'fastify-metrics'
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { RefusalReason } from '../src/access/index.js'
import type { UpstreamCallRecord } from '../src/executor/index.js'
import type { TokenRequestRecord } from '../src/identity/index.js'
import type { CatalogSnapshot, ReloadRecord } from '../src/store/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    gatewayMetrics: GatewayMetrics
  }
}

/** What the other plugins report; the series are listed in docs/operations.md. */
export interface GatewayMetrics {
  upstreamCall(call: UpstreamCallRecord): void
  /** One request to an OAuth2 token endpoint (issue 45) and how it ended. */
  tokenRequest(record: TokenRequestRecord): void
  sessionCreated(store: string): void
  /** A tool call admitted for a caller (a client id, or `anonymous`), through `rest` or `mcp`. */
  toolCalled(client: string, via: 'rest' | 'mcp'): void
  /** A request refused by access control: the client (or `anonymous`, `unknown`) and why. */
  accessRefused(client: string, reason: RefusalReason): void
  /** An MCP tool answer that does not match the output schema its service advertised (passed on as it is). */
  outputMismatch(service: string): void
  /** The embeddings endpoint gave no usable vectors while indexing tools or for a query (issue 43). */
  embeddingsFailed(stage: 'index' | 'query', reason: string): void
}

/** Seconds: a discovery document from memory takes well under a millisecond, a tool call up to the upstream timeout. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
const RELOAD_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Not timed, as fastify-metrics never timed them: HEAD answers, CORS preflights, and these. */
const UNTIMED_METHODS = new Set(['HEAD', 'OPTIONS', 'TRACE', 'CONNECT'])
const METRICS_PATH = '/metrics'

/**
 * `GET /metrics` (SPEC §5): requests by route pattern and status with a latency histogram,
 * upstream calls and errors by service, catalog reloads and failures, sessions created, and the
 * process's own metrics (fastify-metrics serves them). Each app has its own registry, so several
 * apps in one process (tests) never share or clear each other's series.
 */
async function metrics(fastify: FastifyInstance) {
  const register = new Registry()
  // fastify-metrics' name, help and labels for the request histogram, as it exposed it before.
  const requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'request duration in seconds',
    labelNames: ['method', 'route', 'status_code'],
    buckets: REQUEST_BUCKETS,
    registers: [register],
  })
  // One onResponse hook per timed route, added as the route is: the route's pattern is known
  // then, so a request does not build `request.routeOptions` to find it (issue 20: fastify-metrics'
  // hooks were 7.8 % of a 304).
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((method) => !UNTIMED_METHODS.has(method))
    if (methods.length === 0 || route.url === METRICS_PATH) return
    appendHook(route, 'onResponse', timeRoute(requestDuration, route.url, methods))
  })
  // A CommonJS module whose plugin is its `default` export. Route metrics are ours (above).
  await fastify.register(fastifyMetrics.default, {
    endpoint: METRICS_PATH,
    defaultMetrics: { enabled: true, register },
    routeMetrics: { enabled: false },
    clearRegisterOnInit: false,
  })

  const upstreamRequests = new Counter({
    name: 'toolgate_upstream_requests_total',
    help: 'Upstream calls by service and result: the HTTP status, or timeout, unreachable, circuit-open, too-large, invalid (an answer that is not what it claims), aborted',
    labelNames: ['service', 'result'],
    registers: [register],
  })
  const upstreamErrors = new Counter({
    name: 'toolgate_upstream_errors_total',
    help: 'Upstream calls that failed (no answer) or answered 5xx, by service and kind',
    labelNames: ['service', 'kind'],
    registers: [register],
  })
  const upstreamDuration = new Histogram({
    name: 'toolgate_upstream_duration_seconds',
    help: 'Upstream call duration, retries included, by service',
    labelNames: ['service'],
    buckets: UPSTREAM_BUCKETS,
    registers: [register],
  })
  const reloads = new Counter({
    name: 'toolgate_catalog_reloads_total',
    help: 'Catalog reloads by trigger (watch, poll, signal, manual)',
    labelNames: ['trigger'],
    registers: [register],
  })
  const reloadFailures = new Counter({
    name: 'toolgate_catalog_reload_failures_total',
    help: 'Reloads that left a source broken (serving its last good version, or nothing) or failed outright',
    labelNames: ['trigger'],
    registers: [register],
  })
  const reloadDuration = new Histogram({
    name: 'toolgate_catalog_reload_duration_seconds',
    help: 'Time to load, build and render a reloaded catalog',
    buckets: RELOAD_BUCKETS,
    registers: [register],
  })
  const catalogInfo = new Gauge({
    name: 'toolgate_catalog_info',
    help: 'The catalog version serving (value 1)',
    labelNames: ['version'],
    registers: [register],
  })
  const catalogTools = new Gauge({
    name: 'toolgate_catalog_tools',
    help: 'Tools in the catalog serving',
    registers: [register],
  })
  const catalogLoaded = new Gauge({
    name: 'toolgate_catalog_loaded_timestamp_seconds',
    help: 'When the catalog serving was built',
    registers: [register],
  })
  const staleSources = new Gauge({
    name: 'toolgate_catalog_stale_sources',
    help: 'Sources that are broken now and serve their last good version',
    registers: [register],
  })
  const sessionsCreated = new Counter({
    name: 'toolgate_sessions_created_total',
    help: 'Sessions created, by store (memory or redis)',
    labelNames: ['store'],
    registers: [register],
  })

  const toolCalls = new Counter({
    name: 'toolgate_tool_calls_total',
    help: 'Tool calls admitted, by client (its id, or anonymous while access is open) and surface (rest, mcp)',
    labelNames: ['client', 'via'],
    registers: [register],
  })
  const accessRefusals = new Counter({
    name: 'toolgate_access_refusals_total',
    help: 'Requests refused by access control, by client (its id, anonymous, or unknown for a refused token) and reason',
    labelNames: ['client', 'reason'],
    registers: [register],
  })

  const outputMismatches = new Counter({
    name: 'toolgate_mcp_output_mismatches_total',
    help: "MCP tool answers (2xx) that break the tool's advertised outputSchema or are no JSON object, by service; each is passed on unchanged",
    labelNames: ['service'],
    registers: [register],
  })

  const embeddingsFailures = new Counter({
    name: 'toolgate_search_embeddings_failures_total',
    help: 'requests to the embeddings endpoint that gave no usable vectors, by stage (index, query) and reason; the search ranked by words',
    labelNames: ['stage', 'reason'],
    registers: [register],
  })

  if (fastify.tracingEnabled) {
    // Read from the exporter's count at each scrape: the exporter knows nothing of Prometheus.
    let counted = 0
    new Counter({
      name: 'toolgate_trace_spans_dropped_total',
      help: 'spans the trace exporter lost: the collector was down, refused them or did not answer in time',
      registers: [register],
      collect() {
        const dropped = fastify.tracingDroppedSpans()
        if (dropped > counted) this.inc(dropped - counted)
        counted = dropped
      },
    })
  }

  const tokenRequests = new Counter({
    name: 'toolgate_upstream_token_requests_total',
    help: 'requests to OAuth2 token endpoints (client credentials), by endpoint (origin and path) and result: ok, unreachable, refused (an OAuth error), invalid (no usable token)',
    labelNames: ['endpoint', 'result'],
    registers: [register],
  })
  const tokenFailures = new Counter({
    name: 'toolgate_upstream_token_failures_total',
    help: 'token requests that gave no token, by endpoint and kind (unreachable, refused, invalid)',
    labelNames: ['endpoint', 'kind'],
    registers: [register],
  })

  const showCatalog = (snapshot: CatalogSnapshot) => {
    catalogInfo.reset()
    catalogInfo.set({ version: snapshot.catalog.version }, 1)
    catalogTools.set(snapshot.catalog.tools.length)
    catalogLoaded.set(Date.parse(snapshot.loadedAt) / 1000)
    staleSources.set(snapshot.catalog.sources.filter((source) => source.status === 'stale').length)
  }
  showCatalog(fastify.catalogStore.current())
  fastify.catalogStore.onReload((record: ReloadRecord, snapshot) => {
    reloads.inc({ trigger: record.trigger })
    if (record.outcome === 'failed') reloadFailures.inc({ trigger: record.trigger })
    reloadDuration.observe(record.durationMs / 1000)
    showCatalog(snapshot)
  })

  fastify.decorate<GatewayMetrics>('gatewayMetrics', {
    upstreamCall({ service, result, durationSeconds }) {
      upstreamRequests.inc({ service, result })
      upstreamDuration.observe({ service }, durationSeconds)
      if (typeof result === 'string') upstreamErrors.inc({ service, kind: result })
      else if (result >= 500) upstreamErrors.inc({ service, kind: '5xx' })
    },
    tokenRequest({ endpoint, result }) {
      tokenRequests.inc({ endpoint, result })
      if (result !== 'ok') tokenFailures.inc({ endpoint, kind: result })
    },
    sessionCreated(store) {
      sessionsCreated.inc({ store })
    },
    toolCalled(client, via) {
      toolCalls.inc({ client, via })
    },
    accessRefused(client, reason) {
      accessRefusals.inc({ client, reason })
    },
    outputMismatch(service) {
      outputMismatches.inc({ service })
    },
    embeddingsFailed(stage, reason) {
      embeddingsFailures.inc({ stage, reason })
    },
  })
}

export default fp(metrics, { name: 'metrics', dependencies: ['catalog-store'] })

type RouteLabel = 'method' | 'route' | 'status_code'

/**
 * The onResponse hook of one route: `reply.elapsedTime` runs from the request's start to its last
 * byte. The histogram's child per method and status is kept (prom-client's `labels()`), as the
 * set of either is small.
 */
function timeRoute(
  histogram: Histogram<RouteLabel>,
  route: string,
  methods: readonly string[],
): onResponseHookHandler {
  const byMethod = new Map(
    methods.map((method) => [method, new Map<number, Histogram.Internal<RouteLabel>>()]),
  )
  return (request, reply, done) => {
    const byStatus = byMethod.get(request.method)
    if (byStatus) {
      const status = reply.statusCode
      let child = byStatus.get(status)
      if (!child) {
        child = histogram.labels({ method: request.method, route, status_code: status })
        byStatus.set(status, child)
      }
      child.observe(reply.elapsedTime / 1000)
    }
    done()
  }
}

/** Adds a route-level hook after the route's own. */
function appendHook(route: RouteOptions, name: 'onResponse', hook: onResponseHookHandler) {
  const own = route[name]
  route[name] = own === undefined ? [hook] : [own, hook].flat()
}
