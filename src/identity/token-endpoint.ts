import { type Dispatcher, request } from 'undici'
import { traceTokenRequest } from '../tracing/token-span.js'
import { isRecord } from '../util/is-record.js'

/** What the gateway asks a token endpoint for: the client credentials grant (RFC 6749 §4.4). */
export interface TokenRequest {
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly auth: 'client_secret_basic' | 'client_secret_post'
  /** The grant's own form fields besides the client's (grant_type, scope, audience …). */
  readonly form: Readonly<Record<string, string>>
}

export interface TokenEndpointOptions {
  readonly dispatcher: Dispatcher
  /** Bound on the whole exchange: connecting, the headers and the body. */
  readonly timeoutMs: number
}

/** A token as the endpoint issued it. */
export interface IssuedToken {
  readonly accessToken: string
  /** Seconds; undefined when the endpoint did not say (RFC 6749 makes it RECOMMENDED only). */
  readonly expiresIn: number | undefined
}

/**
 * Why no token came: the endpoint could not be reached in time (`unreachable`), it refused the
 * request with an OAuth error (`refused`, carrying the `error` code), or its answer is no token
 * (`invalid`). `detail` never quotes a secret or a token.
 */
export type TokenFailure = {
  readonly failure: 'unreachable' | 'refused' | 'invalid'
  readonly detail: string
  readonly status?: number
  readonly oauthError?: string
}

/** A token answer is a small JSON object: past this it is no token answer (a 1 MB "token"). */
const MAX_ANSWER_BYTES = 64 * 1024
/** Longer than any real access token (a JWT with many claims is a few kB). */
const MAX_TOKEN_CHARS = 16 * 1024
/** A year: a longer-lived "short-lived" token is a misconfigured endpoint. */
const MAX_EXPIRES_IN = 365 * 24 * 3600
/** An OAuth error code's characters (RFC 6749 §5.2): nothing else is repeated to a caller. */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,100}$/
/** An access token goes into an Authorization header: visible ASCII only. */
const TOKEN_CHARS = /^[\x21-\x7e]+$/

/** POSTs a token request (RFC 6749 §4.4.2, §2.3.1) and checks the answer (§5.1, §5.2). */
export async function fetchToken(
  token: TokenRequest,
  options: TokenEndpointOptions,
): Promise<IssuedToken | TokenFailure> {
  const form = new URLSearchParams(token.form)
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  }
  if (token.auth === 'client_secret_basic') headers.authorization = `Basic ${basicCredentials(token)}`
  else {
    form.set('client_id', token.clientId)
    form.set('client_secret', token.clientSecret)
  }
  return traceTokenRequest(
    { tokenUrl: token.tokenUrl, grantType: token.form.grant_type },
    headers,
    () => send(token, form, headers, options).then((answer) => withoutEcho(answer, token)),
    (answer) => ('failure' in answer ? answer : { ok: true }),
  )
}

/**
 * A careless endpoint quotes back what it was sent (its `error` code the client secret or the
 * subject token): such a code is not passed on, in an error, a log line or a trace.
 */
function withoutEcho(answer: IssuedToken | TokenFailure, token: TokenRequest): IssuedToken | TokenFailure {
  if (!('failure' in answer) || answer.oauthError === undefined) return answer
  const code = answer.oauthError
  const sent = [token.clientSecret, token.form.subject_token].filter((one): one is string => Boolean(one))
  if (!sent.some((one) => code.includes(one) || (code.length >= 6 && one.includes(code)))) return answer
  const { oauthError: _quoted, ...rest } = answer
  return { ...rest, detail: 'an OAuth error code that quotes the credentials it was sent' }
}

async function send(
  token: TokenRequest,
  form: URLSearchParams,
  headers: Record<string, string>,
  options: TokenEndpointOptions,
): Promise<IssuedToken | TokenFailure> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  try {
    const answer = await request(token.tokenUrl, {
      method: 'POST',
      headers,
      body: form.toString(),
      dispatcher: options.dispatcher,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    })
    const text = await readCapped(answer.body)
    if (text === undefined)
      return invalid(`its answer is larger than ${MAX_ANSWER_BYTES} bytes`, answer.statusCode)
    return readAnswer(answer.statusCode, String(answer.headers['content-type'] ?? ''), text)
  } catch (err) {
    const detail = signal.aborted
      ? `no answer within ${options.timeoutMs} ms`
      : ((err as { code?: string }).code ?? 'the connection failed')
    return { failure: 'unreachable', detail }
  }
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined. */
function basicCredentials(token: TokenRequest): string {
  const encode = (value: string) => encodeURIComponent(value).replaceAll('%20', '+')
  return Buffer.from(`${encode(token.clientId)}:${encode(token.clientSecret)}`).toString('base64')
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    if (size > MAX_ANSWER_BYTES) {
      body.destroy()
      return undefined
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function readAnswer(status: number, contentType: string, text: string): IssuedToken | TokenFailure {
  const json = parseObject(text)
  if (status !== 200) {
    const code =
      json && typeof json.error === 'string' && ERROR_CODE.test(json.error) ? json.error : undefined
    if (code) return { failure: 'refused', detail: `OAuth error ${code}`, status, oauthError: code }
    return status >= 500
      ? { failure: 'unreachable', detail: `it answered HTTP ${status}`, status }
      : invalid(`it answered HTTP ${status} without an OAuth error`, status)
  }
  if (!json)
    return invalid(
      `its answer is not a JSON object (content type ${contentType.split(';')[0] || 'none'})`,
      status,
    )
  return readToken(json, status)
}

function readToken(json: Record<string, unknown>, status: number): IssuedToken | TokenFailure {
  const { access_token: accessToken, expires_in: expiresIn, token_type: tokenType } = json
  if (typeof accessToken !== 'string' || accessToken === '')
    return invalid('it holds no access_token', status)
  if (accessToken.length > MAX_TOKEN_CHARS)
    return invalid(`its access_token is longer than ${MAX_TOKEN_CHARS} characters`, status)
  if (!TOKEN_CHARS.test(accessToken))
    return invalid('its access_token holds characters a header cannot carry', status)
  if (typeof tokenType === 'string' && tokenType.toLowerCase() !== 'bearer')
    return invalid('its token_type is not Bearer', status)
  if (expiresIn === undefined) return { accessToken, expiresIn: undefined }
  // Some endpoints send the number as a string ("3600"); anything else is no lifetime.
  const seconds =
    typeof expiresIn === 'string' && /^\d{1,10}$/.test(expiresIn) ? Number(expiresIn) : expiresIn
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0 || seconds > MAX_EXPIRES_IN)
    return invalid(`its expires_in must be whole seconds from 1 to ${MAX_EXPIRES_IN}`, status)
  return { accessToken, expiresIn: seconds }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

function invalid(detail: string, status: number): TokenFailure {
  return { failure: 'invalid', detail, status }
}
