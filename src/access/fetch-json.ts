import { GetFailed, getBounded } from '../util/bounded-get.js'

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
 * GET a JSON document from an issuer, bounded in time and size (decoded bytes) and not
 * redirected (the shared bounded reader); every way it can fail (down, slow, redirected, not 200,
 * too big, not JSON) is a KeysUnavailable naming the URL and the cause.
 */
export async function fetchJson(url: string, options: FetchJsonOptions): Promise<unknown> {
  let answer: Awaited<ReturnType<typeof getBounded>>
  try {
    answer = await getBounded(url, {
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      headers: { accept: 'application/json, application/jwk-set+json' },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    })
  } catch (err) {
    if (err instanceof GetFailed) throw new KeysUnavailable(err.message)
    throw err
  }
  if (answer.status !== 200) throw new KeysUnavailable(`${url} answered ${answer.status} instead of 200`)
  try {
    return JSON.parse(answer.text)
  } catch {
    throw new KeysUnavailable(
      `${url} answered something that is not JSON: ${JSON.stringify(answer.text.slice(0, 80))}`,
    )
  }
}
