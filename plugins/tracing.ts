import type {} from '@fastify/otel' // its `request.opentelemetry()` declaration
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
    if (opts.instrumentation) await fastify.register(opts.instrumentation)
  },
  { name: 'tracing' },
)
