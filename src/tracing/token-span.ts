import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { tracer } from './tracer.js'

/** What a token request's span may say: never the client's secret, the subject token or the token issued. */
export interface TokenSpanInfo {
  readonly tokenUrl: string
  /** `client_credentials`, or RFC 8693's `urn:ietf:params:oauth:grant-type:token-exchange`. */
  readonly grantType: string | undefined
}

/** How a token request ended, as the span records it. */
export type TokenSpanResult =
  | { readonly ok: true }
  | { readonly failure: string; readonly oauthError?: string }

/**
 * A CLIENT span around one request to a token endpoint (issue 46: token fetches and exchanges),
 * named as the HTTP client conventions name a request without a template (`POST`), with the
 * endpoint's address and path (its query left out) and the grant, and the trace context injected
 * into `headers`, so the identity provider's own trace joins the call's. Nothing when there is no
 * trace to continue (always so with tracing off).
 */
export async function traceTokenRequest<T>(
  info: TokenSpanInfo,
  headers: Record<string, string>,
  send: () => Promise<T>,
  resultOf: (answer: T) => TokenSpanResult,
): Promise<T> {
  const parent = context.active()
  if (trace.getSpan(parent) === undefined) return send()
  const url = new URL(info.tokenUrl)
  const span = tracer.startSpan(
    'POST',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': 'POST',
        'server.address': url.hostname,
        'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        'url.path': url.pathname,
        ...(info.grantType ? { 'toolgate.token.grant_type': info.grantType } : {}),
      },
    },
    parent,
  )
  propagation.inject(trace.setSpan(parent, span), headers)
  try {
    const answer = await send()
    const result = resultOf(answer)
    if ('failure' in result) {
      span.setAttribute('error.type', result.failure)
      if (result.oauthError) span.setAttribute('toolgate.token.oauth_error', result.oauthError)
      span.setStatus({ code: SpanStatusCode.ERROR })
    }
    return answer
  } finally {
    span.end()
  }
}
