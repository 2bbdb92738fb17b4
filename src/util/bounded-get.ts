import { isHeaderValue } from './header-value.js'

/**
 * Why a bounded GET has no answer to give. The message names the URL and the cause, and never a
 * header value: the headers carry tokens, and fetch's own errors quote a refused value whole
 * (`Headers.append: "Bearer …" is an invalid header value`), which once reached /ready (issue 41).
 */
export class GetFailed extends Error {
  constructor(
    readonly reason: 'unsendable' | 'timeout' | 'unreachable' | 'too-large',
    message: string,
    /** The cause alone (a code such as ECONNREFUSED), for a caller that words the failure itself. */
    readonly detail = message,
  ) {
    super(message)
    this.name = 'GetFailed'
  }
}

export interface BoundedGetOptions {
  /** One bound on the whole exchange: connect, headers and every byte of the body. */
  readonly timeoutMs: number
  /** Decoded bytes (after gzip, deflate or br): reading stops at the first byte past it. */
  readonly maxBytes: number
  readonly headers?: Readonly<Record<string, string>>
  /** `manual` (the default): a redirect is an answer like any other, not followed. */
  readonly redirect?: 'manual' | 'follow'
  /** A POST with this body (an embeddings request, issue 43); a GET when absent. */
  readonly body?: string
  readonly fetch?: typeof fetch
}

export interface BoundedAnswer {
  readonly status: number
  readonly statusText: string
  /** The body of a 2xx answer, decoded as UTF-8; empty for any other status (its body is not read). */
  readonly text: string
  /** Decoded bytes read, for a caller that budgets several answers together. */
  readonly bytes: number
}

/**
 * GET a document bounded in time and size (or POST a body for one), shared by every reader of a
 * document from elsewhere (an issuer's JWKS, a remote tool source, an embeddings endpoint). Size is counted after content decoding: 3.2 MB of
 * gzip on the wire once decoded to 1.66 GB in the gateway (issue 41). Every way it can fail is a
 * GetFailed; a non-2xx answer is returned with its status for the caller to word.
 */
export async function getBounded(url: string, options: BoundedGetOptions): Promise<BoundedAnswer> {
  const headers = options.headers ?? {}
  for (const [name, value] of Object.entries(headers))
    if (!isHeaderValue(value))
      throw new GetFailed(
        'unsendable',
        `the ${name} header for ${url} holds a line break, control or non-ASCII character; nothing was sent`,
      )
  const signal = AbortSignal.timeout(options.timeoutMs)
  let response: Response
  try {
    response = await (options.fetch ?? fetch)(url, {
      signal,
      redirect: options.redirect ?? 'manual',
      headers,
      ...(options.body === undefined ? {} : { method: 'POST', body: options.body }),
    })
  } catch (err) {
    throw failure(err, signal, options.timeoutMs, `${url} did not answer`)
  }
  const { status, statusText } = response
  if (status < 200 || status > 299) {
    await response.body?.cancel().catch(() => undefined)
    return { status, statusText, text: '', bytes: 0 }
  }
  try {
    const body = await readBounded(response, options.maxBytes, signal)
    return { status, statusText, text: body.toString('utf8'), bytes: body.byteLength }
  } catch (err) {
    if (err instanceof GetFailed)
      throw new GetFailed(err.reason, `the answer from ${url} ${err.message}`, err.message)
    throw failure(err, signal, options.timeoutMs, `the answer from ${url} broke off`)
  }
}

/** Reads the body but never more than maxBytes + 1 decoded bytes; past that the exchange is cancelled. */
async function readBounded(response: Response, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const reader = response.body?.getReader()
  if (!reader) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    if (signal.aborted) throw signal.reason
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined)
      throw new GetFailed('too-large', `is larger than ${maxBytes} bytes (decoded)`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, size)
}

/**
 * The cause as a code or the network's own words. An error without a cause is fetch refusing the
 * request itself, whose message may quote what it refused: only its name is kept.
 */
function failure(err: unknown, signal: AbortSignal, timeoutMs: number, what: string): GetFailed {
  if (signal.aborted) return new GetFailed('timeout', `${what}: no answer within ${timeoutMs} ms`)
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
  const reason =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : `${(err as Error).name ?? 'Error'} (fetch refused the request)`
  return new GetFailed('unreachable', `${what}: ${reason}`, reason)
}
