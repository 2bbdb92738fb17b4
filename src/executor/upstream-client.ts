import { setTimeout as sleep } from 'node:timers/promises'
import { Agent } from 'undici'
import type { RetryPolicy } from '../catalog/types.js'
import type { UpstreamRequest } from './build-request.js'
import { type CircuitBreaker, createCircuitBreaker } from './circuit-breaker.js'
import { checkJson, decodeBody, ResponseInvalid, ResponseTooLarge, readLimited } from './read-response.js'

export interface UpstreamClientOptions {
  readonly connectTimeoutMs: number
  readonly timeoutMs: number
  readonly maxResponseBytes: number
  readonly connectionsPerOrigin: number
  readonly breaker: { readonly failureThreshold: number; readonly cooldownMs: number }
  readonly now?: () => number
  readonly random?: () => number
}

export interface RawResponse {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly bytes: Buffer
  readonly attempts: number
}

/** Why a call produced no response: the executor maps these to 502, 504 and 503. */
export type Failure =
  | {
      readonly failure: 'unreachable'
      readonly code: string
      readonly detail: string
      readonly attempts: number
    }
  | { readonly failure: 'timeout'; readonly code: string; readonly detail: string; readonly attempts: number }
  | { readonly failure: 'too-large'; readonly limit: number; readonly attempts: number }
  /** The upstream answered, but not with something the gateway can relay: not its failure. */
  | {
      readonly failure: 'invalid'
      readonly status: number
      readonly detail: string
      readonly attempts: number
    }
  | { readonly failure: 'circuit-open'; readonly retryAfterMs: number; readonly attempts: number }
  | { readonly failure: 'aborted'; readonly attempts: number }
  /** undici refused to send the request as built (a header name or value from the spec or config). */
  | { readonly failure: 'unsendable'; readonly detail: string; readonly attempts: number }

export interface SendOptions {
  readonly idempotent: boolean
  readonly retry: RetryPolicy
  readonly timeoutMs?: number
  readonly signal?: AbortSignal
}

export interface UpstreamClient {
  send(request: UpstreamRequest, options: SendOptions): Promise<RawResponse | Failure>
  breaker: CircuitBreaker
  close(): Promise<void>
}

/** Errors raised before the request left (nothing was sent) or a reset before any response. */
const NOTHING_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
])
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])
const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/**
 * undici with one bounded keep-alive pool per upstream origin, connect and response timeouts,
 * retries only for idempotent tools and only when nothing was sent or the connection reset
 * before a response (or a 429/503 named a Retry-After), jittered backoff, and a circuit
 * breaker per origin (SPEC §3 step 5).
 */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const now = options.now ?? Date.now
  const random = options.random ?? Math.random
  const agent = new Agent({
    connections: options.connectionsPerOrigin,
    connect: { timeout: options.connectTimeoutMs },
    keepAliveTimeout: 10_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  })
  const breaker = createCircuitBreaker({ ...options.breaker, now })

  const attempt = async (
    req: UpstreamRequest,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<RawResponse | Failure> => {
    let status = 0
    try {
      // Origin and path go to undici separately: a URL parser would turn an encoded `%2E%2E`
      // path value back into `..` and normalize it away (WHATWG URL dot-segment rules).
      const response = await agent.request({
        origin: req.origin,
        path: req.path,
        method: req.method as 'GET',
        headers: req.headers,
        body: req.body ?? null,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
      })
      status = response.statusCode
      const raw = await readLimited(response.body, options.maxResponseBytes)
      const decoded = await decodeBody(raw, response.headers['content-encoding'], options.maxResponseBytes)
      const contentType = response.headers['content-type']
      const bytes = checkJson(decoded, Array.isArray(contentType) ? contentType[0] : contentType)
      return { status, headers: response.headers, bytes, attempts: 1 }
    } catch (err) {
      if (err instanceof ResponseInvalid)
        return { failure: 'invalid', status, detail: err.message, attempts: 1 }
      // Once the call's signal has fired, its reason says why, whatever undici threw: a caller's
      // own reason (MCP cancels with a string, closes with an McpError) is not an upstream failure.
      if (signal.aborted && !(err instanceof ResponseTooLarge)) return stopped(signal)
      return classify(err, options.maxResponseBytes)
    }
  }

  const send = async (req: UpstreamRequest, sendOptions: SendOptions): Promise<RawResponse | Failure> => {
    const retryAfter = breaker.refuse(req.origin)
    if (retryAfter !== undefined) return { failure: 'circuit-open', retryAfterMs: retryAfter, attempts: 0 }
    const maxAttempts = sendOptions.idempotent ? sendOptions.retry.maxAttempts : 1
    // One deadline for the whole call — every attempt, the waits between them, headers and the
    // whole body — so an upstream trickling its body cannot hold a call open (issue 14 class 9).
    const timeoutMs = sendOptions.timeoutMs ?? options.timeoutMs
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new DeadlineExceeded(timeoutMs)), timeoutMs)
    const callerGone = () => controller.abort(sendOptions.signal?.reason)
    if (sendOptions.signal?.aborted) callerGone()
    else sendOptions.signal?.addEventListener('abort', callerGone, { once: true })
    let outcome: RawResponse | Failure = { failure: 'aborted', attempts: 0 }
    try {
      for (let attempts = 1; attempts <= maxAttempts; attempts++) {
        outcome = { ...(await attempt(req, timeoutMs, controller.signal)), attempts }
        const delay = retryDelay(outcome, attempts, sendOptions.retry, random)
        if (delay === undefined || attempts === maxAttempts || controller.signal.aborted) break
        await sleep(delay, undefined, { signal: controller.signal }).catch(() => undefined)
        if (controller.signal.aborted) {
          outcome = { ...stopped(controller.signal), attempts }
          break
        }
      }
    } finally {
      clearTimeout(timer)
      sendOptions.signal?.removeEventListener('abort', callerGone)
    }
    // A call the caller cancelled, or one never sent, says nothing about the upstream's health.
    if ('failure' in outcome && (outcome.failure === 'aborted' || outcome.failure === 'unsendable')) {
      breaker.release(req.origin)
      return outcome
    }
    if (isBreakerFailure(outcome)) breaker.fail(req.origin)
    else breaker.succeed(req.origin)
    return outcome
  }

  return { send, breaker, close: () => agent.close() }
}

/** The whole call's deadline passed: the reason its signal aborts with. */
class DeadlineExceeded extends Error {
  readonly code = 'TG_DEADLINE'
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`)
  }
}

/** Why an aborted call stopped: its deadline passed (timeout), or its caller went away. */
function stopped(signal: AbortSignal): Failure {
  const reason: unknown = signal.reason
  return reason instanceof DeadlineExceeded
    ? { failure: 'timeout', code: reason.code, detail: reason.message, attempts: 1 }
    : { failure: 'aborted', attempts: 1 }
}

function classify(err: unknown, limit: number): Failure {
  if (err instanceof ResponseTooLarge) return { failure: 'too-large', limit, attempts: 1 }
  const error = err as { name?: string; code?: string; message?: string; cause?: { code?: string } }
  if (error.name === 'AbortError' || error.code === 'UND_ERR_ABORTED')
    return { failure: 'aborted', attempts: 1 }
  const code = error.code ?? error.cause?.code ?? 'UNKNOWN'
  const detail = error.message && error.message !== code ? `${code}: ${error.message}` : code
  if (code === 'UND_ERR_INVALID_ARG') return { failure: 'unsendable', detail, attempts: 1 }
  if (TIMEOUTS.has(code)) return { failure: 'timeout', code, detail, attempts: 1 }
  return { failure: 'unreachable', code, detail, attempts: 1 }
}

/** The wait before another attempt, or undefined when this outcome must not be retried. */
function retryDelay(
  outcome: RawResponse | Failure,
  attempts: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempts - 1))
  const jittered = Math.round(backoff * (0.5 + random() / 2))
  if ('failure' in outcome) {
    if (outcome.failure !== 'unreachable' && outcome.failure !== 'timeout') return undefined
    return NOTHING_SENT.has(outcome.code) || RESET.has(outcome.code) ? jittered : undefined
  }
  if (outcome.status !== 429 && outcome.status !== 503) return undefined
  const header = outcome.headers['retry-after']
  const seconds = Number(Array.isArray(header) ? header[0] : header)
  if (!Number.isFinite(seconds) || seconds < 0 || seconds * 1000 > policy.maxDelayMs) return undefined
  return seconds * 1000
}

/** Transport failures and gateway-ish upstream answers count against the origin's circuit. */
function isBreakerFailure(outcome: RawResponse | Failure): boolean {
  if ('failure' in outcome && outcome.failure !== 'invalid')
    return outcome.failure === 'unreachable' || outcome.failure === 'timeout'
  return outcome.status === 502 || outcome.status === 503 || outcome.status === 504
}
