import type {} from '@fastify/otel' // its `request.opentelemetry()` declaration
import { SpanStatusCode } from '@opentelemetry/api'
import type { FastifyPluginCallback } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** True when the gateway exports traces (an OTEL_* endpoint is set): call paths add their spans. */
    tracingEnabled: boolean
    /** Spans the exporter lost so far (the collector down, refusing, too slow): 0 with tracing off. */
    tracingDroppedSpans: () => number
  }
}

/** What the app needs of a started tracing (src/tracing/start-tracing.ts). */
export interface TracingHooks {
  /** @fastify/otel's plugin: the server span of every route. */
  readonly plugin: FastifyPluginCallback
  droppedSpans(): number
}

export interface TracingPluginOptions {
  /** Absent when tracing is off. */
  readonly started?: TracingHooks | undefined
}

/**
 * The server span of every route: @fastify/otel, registered before any route so that it sees
 * them all. Off, the plugin only says so (`tracingEnabled`), and nothing of OpenTelemetry's SDK
 * is loaded.
 */
export default fp<TracingPluginOptions>(
  async function tracing(fastify, opts) {
    const { started } = opts
    fastify.decorate('tracingEnabled', started !== undefined)
    fastify.decorate('tracingDroppedSpans', started ? () => started.droppedSpans() : () => 0)
    if (!started) return
    await fastify.register(started.plugin)
    // @fastify/otel puts an error's message in the server span's status; ours can quote the
    // caller's body (a JSON parse error's excerpt: argument values). The status says the HTTP one.
    // Global onSend hooks run after onError and before its own, route-level, ending hook.
    fastify.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode >= 400)
        request
          .opentelemetry()
          .span?.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${reply.statusCode}` })
      done(null, payload)
    })
  },
  { name: 'tracing' },
)
