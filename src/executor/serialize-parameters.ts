import type { Parameter } from '../catalog/types.js'
import { isHeaderValue } from '../util/header-value.js'
import { isRecord } from '../util/is-record.js'

/**
 * OpenAPI parameter serialization (SPEC §3): path simple/label/matrix, query form,
 * spaceDelimited, pipeDelimited and deepObject, each with explode, allowReserved, and the
 * header and cookie styles. Values are percent-encoded here; callers concatenate.
 */

/** Reserved characters allowReserved keeps as they are; `&`, `=`, `#` and `+` would change the query's meaning. */
const KEPT_WITH_ALLOW_RESERVED = /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B|5B|5D)/gi

export function encodeValue(text: string, allowReserved = false): string {
  // Arguments with lone surrogates are refused before this (check-argument-values.ts); a value
  // that still holds one is made well-formed here rather than letting encodeURIComponent throw.
  const encoded = encodeURIComponent(text.isWellFormed() ? text : text.toWellFormed())
  return allowReserved
    ? encoded.replace(KEPT_WITH_ALLOW_RESERVED, (match) => decodeURIComponent(match))
    : encoded
}

/** A scalar as text: strings as they are, everything else as JSON (true, 12, {"a":1}). */
export function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function asPairs(value: Record<string, unknown>): [string, string][] {
  return Object.entries(value)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => [k, scalarText(v)])
}

/** A parameter declared with `content` (e.g. application/json) is its serialized document. */
function contentValue(parameter: Parameter, value: unknown): unknown {
  return parameter.contentType && typeof value !== 'string' ? JSON.stringify(value) : value
}

/** The text that replaces `{name}` in the path; `/`, `?`, `#` and `..` cannot escape the segment. */
export function serializePathParameter(parameter: Parameter, raw: unknown): string {
  const value = contentValue(parameter, raw)
  const { style, explode, name } = parameter
  const enc = (text: string) => encodeValue(text)
  if (Array.isArray(value)) {
    const items = value.map((item) => enc(scalarText(item)))
    if (style === 'label') return `.${items.join(explode ? '.' : ',')}`
    if (style === 'matrix')
      return explode ? items.map((item) => `;${name}=${item}`).join('') : `;${name}=${items.join(',')}`
    return items.join(',')
  }
  if (isRecord(value)) {
    const pairs = asPairs(value).map(([k, v]) => [enc(k), enc(v)] as const)
    const flat = pairs.flat().join(',')
    const assigned = (separator: string) => pairs.map(([k, v]) => `${k}=${v}`).join(separator)
    if (style === 'label') return explode ? `.${assigned('.')}` : `.${flat}`
    if (style === 'matrix') return explode ? `;${assigned(';')}` : `;${name}=${flat}`
    return explode ? assigned(',') : flat
  }
  const text = enc(scalarText(value))
  if (style === 'label') return `.${text}`
  if (style === 'matrix') return `;${name}=${text}`
  return text
}

/** `name=value` parts of the query string, already encoded, in order. */
export function serializeQueryParameter(parameter: Parameter, raw: unknown): string[] {
  const value = contentValue(parameter, raw)
  const { style, explode, allowReserved } = parameter
  const key = encodeValue(parameter.name)
  const enc = (text: string) => encodeValue(text, allowReserved)
  if (style === 'deepObject') return bracketPairs(parameter.name, value).map(([k, v]) => `${k}=${enc(v)}`)
  if (Array.isArray(value)) {
    const items = value
      .filter((item) => item !== null && item !== undefined)
      .map((item) => enc(scalarText(item)))
    if (items.length === 0) return []
    if (explode) return items.map((item) => `${key}=${item}`)
    const delimiter = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ','
    return [`${key}=${items.join(delimiter)}`]
  }
  if (isRecord(value)) {
    const pairs = asPairs(value)
    if (explode) return pairs.map(([k, v]) => `${encodeValue(k)}=${enc(v)}`)
    const delimiter = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ','
    return [`${key}=${pairs.flatMap(([k, v]) => [enc(k), enc(v)]).join(delimiter)}`]
  }
  return [`${key}=${enc(scalarText(value))}`]
}

/**
 * Bracket notation for nested values: `filter[assignee]=x`, `items[0][price]=p` — deepObject
 * query parameters and nested form-urlencoded bodies (Stripe). Keys keep literal brackets.
 */
export function bracketPairs(prefix: string, value: unknown): [string, string][] {
  if (value === null || value === undefined) return []
  if (Array.isArray(value)) return value.flatMap((item, i) => bracketPairs(`${prefix}[${i}]`, item))
  if (isRecord(value)) return Object.entries(value).flatMap(([k, v]) => bracketPairs(`${prefix}[${k}]`, v))
  return [[encodeKey(prefix), scalarText(value)]]
}

function encodeKey(key: string): string {
  return encodeValue(key).replaceAll('%5B', '[').replaceAll('%5D', ']')
}

/** Header value, style simple. Returns undefined for a value HTTP cannot carry in a header (see isHeaderValue). */
export function serializeHeaderParameter(parameter: Parameter, raw: unknown): string | undefined {
  const value = contentValue(parameter, raw)
  let text: string
  if (Array.isArray(value)) text = value.map(scalarText).join(',')
  else if (isRecord(value)) {
    const pairs = asPairs(value)
    text = parameter.explode ? pairs.map(([k, v]) => `${k}=${v}`).join(',') : pairs.flat().join(',')
  } else text = scalarText(value)
  return isHeaderValue(text) ? text : undefined
}

/**
 * `name=value` cookie pairs (style form). Names and values are percent-encoded, exploded object
 * keys included, so no `;`, `,`, `=`, space or control character can split a pair or add one.
 */
export function serializeCookieParameter(parameter: Parameter, raw: unknown): string[] {
  const value = contentValue(parameter, raw)
  const { explode } = parameter
  const name = encodeCookieName(parameter.name)
  if (Array.isArray(value)) {
    const items = value.map((item) => encodeValue(scalarText(item)))
    return explode ? items.map((item) => `${name}=${item}`) : [`${name}=${items.join(',')}`]
  }
  if (isRecord(value)) {
    const pairs = asPairs(value)
    // A pair with an empty name is no cookie: `=v` is read as a cookie named `v` by some servers.
    if (explode)
      return pairs.filter(([k]) => k !== '').map(([k, v]) => `${encodeCookieName(k)}=${encodeValue(v)}`)
    return [`${name}=${pairs.flatMap(([k, v]) => [encodeValue(k), encodeValue(v)]).join(',')}`]
  }
  return [`${name}=${encodeValue(scalarText(value))}`]
}

/** A cookie name is an HTTP token: percent-encoded, and `(` `)` too, which encodeURIComponent keeps. */
export function encodeCookieName(name: string): string {
  return encodeValue(name).replaceAll('(', '%28').replaceAll(')', '%29')
}

/** The name of an encoded `name=value` pair, decoded, to compare with the gateway's own names. */
export function pairName(pair: string): string {
  const equals = pair.indexOf('=')
  const encoded = equals === -1 ? pair : pair.slice(0, equals)
  try {
    return decodeURIComponent(encoded)
  } catch {
    return encoded
  }
}
