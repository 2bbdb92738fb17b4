import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { UpstreamRequest } from '../executor/build-request.js'
import type { BreakerState } from '../executor/circuit-breaker.js'
import { ATTR, tracer } from './tracer.js'

/** One upstream attempt as traced: the headers to send (with `traceparent`) and its end. */
export interface AttemptSpan {
  readonly headers: Record<string, string>
  end(result: { status: number } | { failure: string }): void
}

export interface AttemptInfo {
  /** The path template of the tool (`/tickets/{id}`), never the filled URL: that may carry secrets. */
  readonly urlTemplate: string | undefined
  /** 1 for the first attempt, 2 for the first retry… */
  readonly attempt: number
  readonly breakerState: () => BreakerState
}

/**
 * A CLIENT span around one upstream attempt (HTTP client conventions: `{method} {url.template}`,
 * `http.request.resend_count` on retries) and the request's headers with the current trace
 * context injected. Undefined when there is no trace to continue — always so with tracing off, so
 * the call path then costs one context lookup.
 */
export function startAttemptSpan(req: UpstreamRequest, info: AttemptInfo): AttemptSpan | undefined {
  const parent = context.active()
  if (trace.getSpan(parent) === undefined) return undefined
  const { address, port } = serverOf(req.origin)
  const span = tracer.startSpan(
    info.urlTemplate === undefined ? req.method : `${req.method} ${info.urlTemplate}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': req.method,
        ...(info.urlTemplate === undefined ? {} : { 'url.template': info.urlTemplate }),
        'server.address': address,
        'server.port': port,
        ...(info.attempt > 1 ? { 'http.request.resend_count': info.attempt - 1 } : {}),
      },
    },
    parent,
  )
  if (span.isRecording()) span.setAttribute(ATTR.breakerState, info.breakerState())
  const headers = { ...req.headers }
  propagation.inject(trace.setSpan(parent, span), headers)
  return { headers, end: (result) => endAttempt(span, result) }
}

/** Upstream origins are few and fixed by configuration: each is parsed once. */
const servers = new Map<string, { readonly address: string; readonly port: number }>()
const MAX_SERVERS = 1_000

function serverOf(origin: string): { readonly address: string; readonly port: number } {
  let server = servers.get(origin)
  if (server) return server
  const url = new URL(origin)
  server = { address: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) }
  if (servers.size >= MAX_SERVERS) servers.clear()
  servers.set(origin, server)
  return server
}

function endAttempt(span: Span, result: { status: number } | { failure: string }): void {
  if ('failure' in result) {
    span.setAttribute('error.type', result.failure)
    span.setStatus({ code: SpanStatusCode.ERROR })
  } else {
    span.setAttribute('http.response.status_code', result.status)
    if (result.status >= 500) {
      span.setAttribute('error.type', String(result.status))
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
  }
  span.end()
}
