import { FormData } from 'undici'
import type { JsonSchema, PropertyEncoding, Tool } from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'
import { getOwn } from '../util/own.js'
import { bracketPairs, encodeValue, scalarText } from './serialize-parameters.js'
import type { Violation } from './types.js'

export interface EncodedBody {
  readonly contentType?: string
  readonly body: string | Buffer | FormData
}

/** JSON bodies: application/json, any +json type, and the wildcard type (sent as JSON). */
export const isJson = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type) || type === '*/*'
const isForm = (type: string) => /^application\/x-www-form-urlencoded\b/i.test(type)
const isMultipart = (type: string) => /^multipart\//i.test(type)
const isText = (type: string) => /^text\//i.test(type)

/**
 * The request body from the body arguments (SPEC §3 step 2): JSON, form-urlencoded with nested
 * values in bracket notation (Stripe), multipart with per-part content types and base64 files,
 * raw bytes or text. Returns undefined when there is no body to send.
 */
export function encodeBody(
  tool: Tool,
  bodyArgs: Record<string, unknown>,
  whole: unknown,
  violations: Violation[],
): EncodedBody | undefined {
  const contentType = tool.binding.bodyContentType
  if (!contentType || !tool.requestBody) return undefined
  const hasArgs = whole !== undefined || Object.keys(bodyArgs).length > 0
  if (!hasArgs && !tool.requestBody.required) return undefined
  const value = whole !== undefined ? whole : bodyArgs
  const encodings = tool.requestBody.encodings[contentType] ?? {}
  if (isJson(contentType)) {
    return {
      contentType: contentType === '*/*' ? 'application/json' : contentType,
      body: JSON.stringify(value),
    }
  }
  if (isForm(contentType)) return { contentType, body: formUrlEncoded(value, encodings) }
  if (isMultipart(contentType)) return { body: multipart(tool, value, encodings, violations) }
  if (isText(contentType)) return { contentType, body: scalarText(value) }
  const bytes = decodeBase64(value, '/body', violations)
  return bytes ? { contentType, body: bytes } : undefined
}

/** OpenAPI form encoding: scalars `k=v`, scalar lists repeated (explode) or comma-joined, nested values in brackets. */
function formUrlEncoded(value: unknown, encodings: Readonly<Record<string, PropertyEncoding>>): string {
  // A string is the caller's own encoded form (a body declared as one): sent as it is.
  if (typeof value === 'string') return value
  if (!isRecord(value)) return encodeValue(scalarText(value))
  const parts: string[] = []
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue
    const encoding = getOwn(encodings, name) ?? {}
    const nested =
      isRecord(item) || (Array.isArray(item) && item.some((i) => isRecord(i) || Array.isArray(i)))
    if (nested || encoding.style === 'deepObject') {
      for (const [key, text] of bracketPairs(name, item)) parts.push(`${key}=${encodeValue(text)}`)
    } else if (Array.isArray(item)) {
      const items = item.map((i) => encodeValue(scalarText(i)))
      if (encoding.explode === false) parts.push(`${encodeValue(name)}=${items.join(',')}`)
      else for (const text of items) parts.push(`${encodeValue(name)}=${text}`)
    } else {
      parts.push(`${encodeValue(name)}=${encodeValue(scalarText(item))}`)
    }
  }
  return parts.join('&')
}

/** One part per argument: files (base64 in the schema) as bytes, objects as JSON, scalars as text. */
function multipart(
  tool: Tool,
  value: unknown,
  encodings: Readonly<Record<string, PropertyEncoding>>,
  violations: Violation[],
): FormData {
  const form = new FormData()
  if (!isRecord(value)) {
    // Never an empty multipart body in place of what the caller sent.
    violations.push({ path: '/body', message: 'must be an object: a multipart body is a set of named parts' })
    return form
  }
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>
  const keyFor = new Map(
    Object.entries(tool.binding.arguments).flatMap(([key, t]) =>
      'name' in t && t.in === 'body' ? [[t.name, key]] : [],
    ),
  )
  for (const [name, item] of Object.entries(value)) {
    if (item === undefined || item === null) continue
    const declared = getOwn(encodings, name)?.contentType
    const schema = getOwn(properties, keyFor.get(name) ?? name) ?? {}
    const at = `/${keyFor.get(name) ?? name}`
    const items = isRecord(schema.items) ? (schema.items as JsonSchema) : undefined
    if (schema.contentEncoding === 'base64') {
      appendFile(form, name, decodeBase64(item, at, violations), declared)
    } else if (Array.isArray(item) && items?.contentEncoding === 'base64') {
      // A list of files is one part per file, all under the one name (OpenAPI: array properties repeat).
      for (const [i, file] of item.entries())
        appendFile(form, name, decodeBase64(file, `${at}/${i}`, violations), declared)
    } else if (typeof item === 'object') {
      form.append(name, new Blob([JSON.stringify(item)], { type: declared ?? 'application/json' }))
    } else if (declared) {
      form.append(name, new Blob([scalarText(item)], { type: declared }))
    } else {
      form.append(name, scalarText(item))
    }
  }
  return form
}

function appendFile(form: FormData, name: string, bytes: Buffer | undefined, type: string | undefined): void {
  if (bytes) form.append(name, new Blob([bytes], { type: type ?? 'application/octet-stream' }), name)
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Base64 (or base64url, or a `data:…;base64,` URI) to bytes; anything else is a violation. */
function decodeBase64(value: unknown, path: string, violations: Violation[]): Buffer | undefined {
  const text =
    typeof value === 'string' ? value.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '') : undefined
  if (text === undefined || !BASE64.test(text)) {
    violations.push({ path, message: 'must be base64-encoded bytes' })
    return undefined
  }
  return Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64')
}
