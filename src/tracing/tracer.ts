import { type Span, type SpanOptions, SpanStatusCode, trace } from '@opentelemetry/api'
import { PACKAGE_VERSION } from '../version.js'

/**
 * The gateway's tracer. Without a registered SDK (tracing off) it is the API's no-op: its spans
 * record nothing, allocate next to nothing, and inject no header.
 */
export const tracer = trace.getTracer('toolgate', PACKAGE_VERSION)

/** Attribute names of our own, where the OpenTelemetry conventions have none (docs/tracing.md). */
export const ATTR = {
  toolId: 'toolgate.tool.id',
  service: 'toolgate.service.id',
  client: 'toolgate.client.id',
  dryRun: 'toolgate.tool.dry_run',
  approvalRequired: 'toolgate.tool.approval.required',
  approvalGiven: 'toolgate.tool.approval.given',
  outcome: 'toolgate.tool.outcome',
  validationFailures: 'toolgate.tool.validation_failures',
  breakerState: 'toolgate.upstream.breaker.state',
} as const

/**
 * Runs `body` in a new active span, which ends when `body` settles; a throw marks it ERROR with the
 * error's class as `error.type` (never its message: it may quote a caller's input).
 */
export function inActiveSpan<T>(
  name: string,
  options: SpanOptions,
  body: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await body(span)
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR })
      span.setAttribute('error.type', err instanceof Error ? err.name : 'unknown')
      throw err
    } finally {
      span.end()
    }
  })
}
