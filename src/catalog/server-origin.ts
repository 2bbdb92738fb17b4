/**
 * The origin of the first absolute http(s) URL among `candidates`: the one a call goes to, as the
 * executor picks its base URL (build-request.ts). Compared as the WHATWG URL writes origins, so
 * case, default ports, userinfo, IDN (punycode) and IPv6 spellings of one origin are one origin;
 * anything else (another host, port or scheme, a trailing-dot name) is another.
 */
export function firstOrigin(candidates: readonly (string | undefined)[]): string | undefined {
  for (const candidate of candidates) {
    if (!candidate) continue
    const origin = originOf(candidate)
    if (origin !== undefined) return origin
  }
  return undefined
}

/** `url`'s origin, or undefined when it is relative or not http(s). */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined
  } catch {
    return undefined
  }
}

/** `services.<id>.allowOrigins` as origins (the schema admits `scheme://host[:port]` only). */
export function allowedOrigins(list: readonly string[] | undefined): string[] {
  return (list ?? []).flatMap((entry) => {
    const origin = originOf(entry)
    return origin === undefined ? [] : [origin]
  })
}
