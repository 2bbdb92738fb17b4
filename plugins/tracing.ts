import type {} from '@fastify/otel' // its `request.opentelemetry()` declaration
import { SpanStatusCode } from '@opentelemetry/api'
import type { FastifyPluginCallback } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** True when the gateway exports traces (an OTEL_* endpoint is set): call paths add their spans. */
    tracingEnabled: boolean
  }
}

export interface TracingPluginOptions {
  /** @fastify/otel's plugin, from startTracing; absent when tracing is off. */
  readonly instrumentation?: FastifyPluginCallback | undefined
}

/**
 * The server span of every route: @fastify/otel, registered before any route so that it sees
 * them all. Off, the plugin only says so (`tracingEnabled`), and nothing of OpenTelemetry's SDK
 * is loaded.
 */
export default fp<TracingPluginOptions>(
  async function tracing(fastify, opts) {
    fastify.decorate('tracingEnabled', opts.instrumentation !== undefined)
    if (!opts.instrumentation) return
    await fastify.register(opts.instrumentation)
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
