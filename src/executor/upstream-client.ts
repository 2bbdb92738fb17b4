import type { Dispatcher } from 'undici'
import { Agent } from 'undici'
import type { RetryPolicy } from '../catalog/types.js'
import { type AttemptSpan, startAttemptSpan } from '../tracing/upstream-span.js'
import type { UpstreamRequest } from './build-request.js'
import { type CircuitBreaker, createCircuitBreaker } from './circuit-breaker.js'
import { checkJson, decodeBody, ResponseInvalid, ResponseTooLarge } from './read-response.js'

/**
 * The upstream's headers as undici parses them for `onResponseStart`: names in lower case, a
 * repeated header as an array. The gateway reads the answer's framing and type, the ones relayed
 * to the caller (execute-tool's PASSED_HEADERS) and a JSON-RPC server's challenge.
 */
export type UpstreamHeaders = Readonly<Record<string, string | string[] | undefined>>

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
  readonly headers: UpstreamHeaders
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
  /** An open circuit refused the call: the origin's (down for everyone) or this caller's own. */
  | {
      readonly failure: 'circuit-open'
      readonly circuit: 'origin' | 'caller'
      readonly retryAfterMs: number
      readonly attempts: number
    }
  | { readonly failure: 'aborted'; readonly attempts: number }
  /** undici refused to send the request as built (a header name or value from the spec or config). */
  | { readonly failure: 'unsendable'; readonly detail: string; readonly attempts: number }

export interface SendOptions {
  readonly idempotent: boolean
  readonly retry: RetryPolicy
  readonly timeoutMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  /** Who calls: the tool and the client, whose circuit a 5xx answer or a timeout counts against. */
  readonly caller?: { readonly tool: string; readonly client: string } | undefined
  /** The tool's path template, which an attempt's trace span names (never the filled URL). */
  readonly urlTemplate?: string | undefined
}

export interface UpstreamClient {
  send(request: UpstreamRequest, options: SendOptions): Promise<RawResponse | Failure>
  /** One circuit per origin: opened by failures that say the upstream is down for everyone. */
  breaker: CircuitBreaker
  /** One circuit per caller of an origin, keyed `["<origin>","<tool>","<client>"]`, failing ones only. */
  callerBreaker: CircuitBreaker
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
const TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT'])

/**
 * undici with one bounded keep-alive pool per upstream origin, a connect timeout, one deadline per
 * call, retries only for idempotent tools and only when nothing was sent or the connection reset
 * before a response (or a 429/503 named a Retry-After), jittered backoff, and a circuit breaker
 * per origin (SPEC §3 step 5) beside one per caller of an origin (blameOf says which counts what).
 *
 * Each attempt goes to undici's `dispatch` with an Exchange as its handler (undici 7's handler
 * API, Dispatcher.md), which collects the body's Buffers as they arrive. The call's deadline timer
 * and the caller's AbortSignal stop the exchange in flight, and the wait between attempts,
 * directly: no AbortController of the call's own (on Node 20, a fresh AbortSignal's first
 * listener cost ≈ 10 µs, doubling the client's CPU per call).
 */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const now = options.now ?? Date.now
  const random = options.random ?? Math.random
  const limit = options.maxResponseBytes
  const agent = new Agent({
    connections: options.connectionsPerOrigin,
    connect: { timeout: options.connectTimeoutMs },
    keepAliveTimeout: 10_000,
    // The call's own deadline bounds headers and body: undici's timers, set to it too, ran from an
    // earlier request on a reused connection and ended calls up to 90 ms early as their own error.
    headersTimeout: 0,
    bodyTimeout: 0,
  })
  const breaker = createCircuitBreaker({ ...options.breaker, now })
  const callerBreaker = createCircuitBreaker({ ...options.breaker, now, forgetClosed: true })

  /** One attempt: a promise settled once by its Exchange with the answer or the failure. */
  const attempt = (
    req: UpstreamRequest,
    call: Call,
    traced?: AttemptSpan,
  ): Promise<RawResponse | Failure> => {
    if (call.stopped) return Promise.resolve(stopped(call.reason))
    const exchange = new Exchange(limit, call)
    call.exchange = exchange
    // Origin and path go to undici separately: a URL parser would turn an encoded `%2E%2E`
    // path value back into `..` and normalize it away (WHATWG URL dot-segment rules).
    return exchange.run(agent, {
      origin: req.origin,
      path: req.path,
      method: req.method as Dispatcher.HttpMethod,
      headers: traced?.headers ?? req.headers,
      body: req.body ?? null,
    })
  }

  const send = async (req: UpstreamRequest, sendOptions: SendOptions): Promise<RawResponse | Failure> => {
    const { caller } = sendOptions
    const callerKey = caller && JSON.stringify([req.origin, caller.tool, caller.client])
    // The caller's circuit is only looked at first: a call it refuses takes no origin probe slot.
    const callerWait = callerKey === undefined ? undefined : callerBreaker.waiting(callerKey)
    if (callerWait !== undefined)
      return { failure: 'circuit-open', circuit: 'caller', retryAfterMs: callerWait, attempts: 0 }
    const retryAfter = breaker.refuse(req.origin)
    if (retryAfter !== undefined)
      return { failure: 'circuit-open', circuit: 'origin', retryAfterMs: retryAfter, attempts: 0 }
    if (callerKey !== undefined) callerBreaker.refuse(callerKey) // a half-open one's probe slot
    const maxAttempts = sendOptions.idempotent ? sendOptions.retry.maxAttempts : 1
    // One deadline for the whole call — every attempt, the waits between them, headers and the
    // whole body — so an upstream trickling its body cannot hold a call open (issue 14 class 9).
    // A timer cleared when the call ends, not AbortSignal.timeout: that one's timer runs on after
    // the call, and its TimeoutError could not be told from a caller's own.
    const timeoutMs = sendOptions.timeoutMs ?? options.timeoutMs
    const call = new Call()
    const timer = setTimeout(expire, timeoutMs, call, timeoutMs)
    const { signal } = sendOptions
    const callerGone = signal && follow(signal, call)
    let outcome: RawResponse | Failure = { failure: 'aborted', attempts: 0 }
    try {
      for (let attempts = 1; attempts <= maxAttempts; attempts++) {
        // A span per attempt when a trace is active (its context goes out in `traceparent`).
        const traced = startAttemptSpan(req, {
          urlTemplate: sendOptions.urlTemplate,
          attempt: attempts,
          breakerState: () => breaker.state(req.origin),
        })
        const result = await attempt(req, call, traced)
        traced?.end(result)
        outcome = attempts === 1 ? result : { ...result, attempts }
        if (attempts === maxAttempts || call.stopped) break
        const delay = retryDelay(outcome, attempts, sendOptions.retry, random)
        if (delay === undefined) break
        await call.sleep(delay)
        if (call.stopped) {
          outcome = { ...stopped(call.reason), attempts }
          break
        }
      }
    } finally {
      clearTimeout(timer)
      if (callerGone) signal.removeEventListener('abort', callerGone)
    }
    // A call the caller cancelled, or one never sent, says nothing about the upstream's health;
    // a transport failure holds the origin against everyone, a 5xx or deadline only this caller.
    const blame = blameOf(outcome)
    // Any answer at all shows the upstream reachable: its origin's circuit closes.
    if (blame === 'origin') breaker.fail(req.origin)
    else if (isAnswer(outcome)) breaker.succeed(req.origin)
    else breaker.release(req.origin)
    if (callerKey === undefined) return outcome
    if (blame === 'caller') callerBreaker.fail(callerKey)
    else if (blame === 'none') callerBreaker.succeed(callerKey)
    else callerBreaker.release(callerKey)
    return outcome
  }

  return { send, breaker, callerBreaker, close: () => agent.close() }
}

/** One call's state across its attempts: whether and why it stopped, and what is in flight. */
class Call {
  stopped = false
  reason: unknown = undefined
  exchange: Exchange | undefined = undefined
  private wake: (() => void) | undefined = undefined

  /** Stops the call: its deadline passed, or its caller's signal aborted (with that reason). */
  stop(reason: unknown): void {
    if (this.stopped) return
    this.stopped = true
    this.reason = reason
    this.exchange?.stop(reason instanceof Error ? reason : new CallStopped())
    this.wake?.()
  }

  /** Waits `ms` between attempts, or until the call stops. */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.wake = () => {
        clearTimeout(timer)
        resolve()
      }
    }).finally(() => {
      this.wake = undefined
    })
  }
}

function expire(call: Call, timeoutMs: number): void {
  call.stop(new DeadlineExceeded(timeoutMs))
}

/**
 * Stops the call with the caller's reason when the caller's signal aborts: the listener, for
 * removal once the call has ended, or undefined when the caller had already gone.
 */
function follow(signal: AbortSignal, call: Call): (() => void) | undefined {
  if (signal.aborted) {
    call.stop(signal.reason)
    return undefined
  }
  const gone = () => call.stop(signal.reason)
  signal.addEventListener('abort', gone, { once: true })
  return gone
}

/** The reason an exchange is stopped with when the caller's own reason is not an Error. */
class CallStopped extends Error {
  constructor() {
    super('the call was cancelled')
  }
}

const EMPTY = Buffer.alloc(0)

/**
 * One attempt's exchange with undici, as its dispatch handler (undici 7's `onRequestStart`,
 * `onResponseStart`, `onResponseData`, `onResponseEnd`, `onResponseError`): the status, the
 * headers as undici parsed them and the body's Buffers as they arrive, the body capped at `limit`
 * (a larger declared length is refused before its body is read). `run` settles once, with the
 * body or the Error that ended it. The call stops it (`stop`) when it stops.
 */
class Exchange implements Dispatcher.DispatchHandler {
  status = 0
  /** The last interim (1xx) status seen while no final answer has come. */
  interim = 0
  headers: UpstreamHeaders = {}
  private readonly chunks: Buffer[] = []
  private total = 0
  private controller: Dispatcher.DispatchController | undefined = undefined
  private ended = false
  private stopReason: Error | undefined = undefined
  private resolve: (outcome: RawResponse | Failure | Promise<RawResponse | Failure>) => void = () => undefined

  constructor(
    private readonly limit: number,
    private readonly call: Call,
  ) {}

  run(agent: Dispatcher, options: Dispatcher.DispatchOptions): Promise<RawResponse | Failure> {
    return new Promise((resolve) => {
      this.resolve = resolve
      agent.dispatch(options, this)
    })
  }

  /** Settles the attempt once the exchange has ended with the body or the Error that ended it. */
  private done(raw: Buffer | Error): void {
    this.call.exchange = undefined
    this.resolve(this.outcome(raw))
  }

  private outcome(raw: Buffer | Error): RawResponse | Failure | Promise<RawResponse | Failure> {
    const { call, limit } = this
    if (raw instanceof ResponseTooLarge) return { failure: 'too-large', limit, attempts: 1 }
    if (raw instanceof ResponseInvalid)
      return { failure: 'invalid', status: this.status, detail: raw.message, attempts: 1 }
    // Once the call has stopped, its reason says why, whatever undici reported: a caller's own
    // reason (MCP cancels with a string, closes with an McpError) is not an upstream failure.
    if (call.stopped) return stopped(call.reason)
    if (raw instanceof Error) return noFinalAnswer(raw, this.interim) ?? classify(raw, limit)
    const { status, headers } = this
    const encoding = headers['content-encoding']
    if (encoding === undefined) return answer(status, headers, raw, limit)
    return decodeBody(raw, encoding, limit).then(
      (decoded) => answer(status, headers, decoded, limit),
      (err: unknown) => invalidOrFailed(err, status, limit),
    )
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.stopReason) controller.abort(this.stopReason)
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: UpstreamHeaders,
  ): void {
    // A 101 to a request that asked for no upgrade: the connection now speaks something else.
    if (statusCode === 101) {
      this.refuse(101, 'it switched protocols (101), which a tool call cannot relay')
      return
    }
    if (statusCode < 200) {
      this.interim = statusCode // 1xx: informational, the answer follows
      return
    }
    // undici hands on any three digits; a status HTTP does not define has no meaning to relay
    // (and Node would refuse to write it: the caller got a 500 after the upstream had acted).
    if (statusCode > 599) {
      this.refuse(statusCode, `its status ${statusCode} is outside HTTP's 100–599`)
      return
    }
    this.status = statusCode
    this.headers = headers
    const length = headers['content-length']
    if (length !== undefined && Number(length) > this.limit) this.stop(new ResponseTooLarge(this.limit))
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.ended) return
    this.total += chunk.length
    if (this.total > this.limit) this.stop(new ResponseTooLarge(this.limit))
    else this.chunks.push(chunk)
  }

  onResponseEnd(): void {
    if (this.ended) return
    this.ended = true
    const { chunks } = this
    this.done(
      chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, this.total),
    )
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.ended) return
    this.ended = true
    this.done(error)
  }

  /** Ends the exchange as an answer the gateway cannot relay, naming the upstream's status. */
  private refuse(status: number, detail: string): void {
    this.status = status
    this.stop(new ResponseInvalid(detail))
  }

  /**
   * Ends the exchange now with `reason`; undici aborts the request (its socket is destroyed), at
   * once or, when the request has not started yet, in onRequestStart.
   */
  stop(reason: Error): void {
    if (this.ended) return
    this.ended = true
    this.stopReason = reason
    this.controller?.abort(reason)
    this.done(reason)
  }
}

/** The answer as relayed: a body labelled JSON must be JSON (checkJson), else it is `invalid`. */
function answer(
  status: number,
  headers: UpstreamHeaders,
  bytes: Buffer,
  limit: number,
): RawResponse | Failure {
  try {
    const contentType = headers['content-type']
    const checked = checkJson(bytes, Array.isArray(contentType) ? contentType[0] : contentType)
    return { status, headers, bytes: checked, attempts: 1 }
  } catch (err) {
    return invalidOrFailed(err, status, limit)
  }
}

function invalidOrFailed(err: unknown, status: number, limit: number): Failure {
  if (err instanceof ResponseInvalid) return { failure: 'invalid', status, detail: err.message, attempts: 1 }
  return classify(err, limit)
}

/** The whole call's deadline passed: the reason its signal aborts with. */
class DeadlineExceeded extends Error {
  readonly code = 'TG_DEADLINE'
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`)
  }
}

/** Why a stopped call stopped: its deadline passed (timeout), or its caller went away. */
function stopped(reason: unknown): Failure {
  return reason instanceof DeadlineExceeded
    ? { failure: 'timeout', code: reason.code, detail: reason.message, attempts: 1 }
    : { failure: 'aborted', attempts: 1 }
}

/**
 * An exchange undici ended before any final answer, when the upstream's own status is why: a 100
 * Continue nobody asked for and a 101 with an Upgrade (undici's SocketError `bad response` and
 * `bad upgrade`, before any onResponseStart), or a 1xx followed by no final answer. These are answers
 * the gateway cannot relay, naming the status — not an unreachable upstream.
 */
function noFinalAnswer(err: Error, interim: number): Failure | undefined {
  const { code } = err as { code?: string }
  const socket = code === 'UND_ERR_SOCKET'
  if (socket && err.message === 'bad response')
    return invalid(100, 'it answered 100 Continue to a request that did not ask for one')
  if (socket && err.message === 'bad upgrade')
    return invalid(101, 'it switched protocols (101), which a tool call cannot relay')
  if (interim === 0) return undefined
  return invalid(
    interim,
    `it sent the interim status ${interim} and then no final answer (${err.message.slice(0, 120)})`,
  )
}

function invalid(status: number, detail: string): Failure {
  return { failure: 'invalid', status, detail, attempts: 1 }
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

/**
 * Which circuit a call's outcome counts against (issue 41 class 5). An upstream nobody can reach —
 * refused, reset, unresolvable, no connection within the connect timeout — is down for everyone:
 * its origin's circuit. A 502/503/504 answer, or a call that ran out its deadline, can be one
 * caller's own doing (a tool that 503s on one input, a query too slow to finish): it counts only
 * against that caller's circuit, one per (origin, tool, client), so no client and no tool can
 * pause an upstream for the others. A cancelled call or one never sent says nothing (`nobody`);
 * every other outcome is an answer (`none`): an answer the gateway cannot relay is not a failure.
 */
/** The upstream answered: with something relayed, or too large, or not what it claimed. */
function isAnswer(outcome: RawResponse | Failure): boolean {
  return !('failure' in outcome) || outcome.failure === 'invalid' || outcome.failure === 'too-large'
}

function blameOf(outcome: RawResponse | Failure): 'origin' | 'caller' | 'none' | 'nobody' {
  if (!('failure' in outcome))
    return outcome.status === 502 || outcome.status === 503 || outcome.status === 504 ? 'caller' : 'none'
  switch (outcome.failure) {
    case 'unreachable':
      return 'origin'
    case 'timeout':
      return outcome.code === 'TG_DEADLINE' ? 'caller' : 'origin'
    case 'aborted':
    case 'unsendable':
    case 'circuit-open':
      return 'nobody'
    default:
      return 'none'
  }
}
