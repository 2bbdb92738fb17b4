/** What stands for a secret in a logged URL. */
export const REDACTED = '[redacted]'
/** A logged URL keeps this many characters; a 10 KB URL is an attack, not information. */
export const LOGGED_URL_CHARS = 512

/** Path segments that follow these are bearer secrets (session codes, SPEC §2). */
const SECRET_SEGMENT_AFTER = /(\/+api\/+sessions\/+)[^/?#]*/gi
/** Query parameters that carry bearer secrets: session codes and OAuth-style tokens. */
const SECRET_PARAMETERS = new Set(['code', 'session', 'token', 'access_token', 'api_key', 'apikey'])

/**
 * A request URL as a log line may show it: session codes in the path and secret-bearing query
 * values replaced, and the whole cut to {@link LOGGED_URL_CHARS} characters.
 */
export function redactUrl(url: string): string {
  const cut = url.length > LOGGED_URL_CHARS ? url.slice(0, LOGGED_URL_CHARS) : url
  const query = cut.indexOf('?')
  const path = (query === -1 ? cut : cut.slice(0, query)).replace(SECRET_SEGMENT_AFTER, `$1${REDACTED}`)
  const redacted = query === -1 ? path : `${path}?${redactQuery(cut.slice(query + 1))}`
  return url.length > LOGGED_URL_CHARS ? `${redacted}…(${url.length} chars)` : redacted
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const name = equals === -1 ? pair : pair.slice(0, equals)
      return equals !== -1 && SECRET_PARAMETERS.has(safeDecode(name).toLowerCase())
        ? `${name}=${REDACTED}`
        : pair
    })
    .join('&')
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}
