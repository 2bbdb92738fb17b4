/** The issuer's keys or configuration could not be had: verification fails closed, with this reason. */
export class KeysUnavailable extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'KeysUnavailable'
  }
}

/** Keys fetched over plain http could be swapped on the way: only a loopback issuer may use it. */
export function isSecureUrl(url: string): boolean {
  const { protocol, hostname } = new URL(url)
  return protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(hostname)
}

export interface FetchJsonOptions {
  readonly timeoutMs: number
  readonly maxBytes: number
  readonly fetch?: typeof fetch
}

/**
 * GET a JSON document from an issuer, bounded in time and size; every way it can fail (down,
 * slow, redirected, not 200, too big, not JSON) is a KeysUnavailable naming the URL and the cause.
 */
export async function fetchJson(url: string, options: FetchJsonOptions): Promise<unknown> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  let response: Response
  try {
    response = await (options.fetch ?? fetch)(url, {
      signal,
      redirect: 'manual',
      headers: { accept: 'application/json, application/jwk-set+json' },
    })
  } catch (err) {
    throw new KeysUnavailable(`${url} did not answer: ${describeFailure(err, signal, options.timeoutMs)}`)
  }
  if (response.status !== 200) {
    await response.body?.cancel()
    throw new KeysUnavailable(`${url} answered ${response.status} instead of 200`)
  }
  const text = await readBounded(response, options.maxBytes, signal).catch((err: unknown) => {
    throw new KeysUnavailable(`${url}: ${describeFailure(err, signal, options.timeoutMs)}`)
  })
  try {
    return JSON.parse(text)
  } catch {
    throw new KeysUnavailable(
      `${url} answered something that is not JSON: ${JSON.stringify(text.slice(0, 80))}`,
    )
  }
}

async function readBounded(response: Response, maxBytes: number, signal: AbortSignal): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    if (signal.aborted) throw signal.reason
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw new Error(`the answer is larger than ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function describeFailure(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `no answer within ${timeoutMs} ms`
  const cause = (err as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (err as Error).message
}
