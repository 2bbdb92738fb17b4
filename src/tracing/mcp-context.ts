import { context, propagation, trace } from '@opentelemetry/api'

/**
 * Runs `work` in the trace context an MCP client put in the request's `params._meta`
 * (`traceparent`, `tracestate`), which then takes precedence over the HTTP headers' (the MCP
 * semantic conventions' rule). A missing or malformed one (W3C rules: ignored) leaves the
 * current context — that of the HTTP request.
 */
export function withMetaContext<T>(meta: unknown, work: () => T): T {
  if (typeof meta !== 'object' || meta === null) return work()
  const { traceparent, tracestate } = meta as Record<string, unknown>
  if (typeof traceparent !== 'string') return work()
  const carrier: Record<string, string> = { traceparent }
  if (typeof tracestate === 'string') carrier.tracestate = tracestate
  const active = context.active()
  const extracted = propagation.extract(active, carrier)
  const remote = trace.getSpanContext(extracted)
  if (!remote?.isRemote || remote === trace.getSpanContext(active)) return work()
  return context.with(extracted, work)
}
