// Parsers for the two non-JSON body formats the example specs declare:
// application/x-www-form-urlencoded (with Stripe-style bracket nesting) and multipart/form-data.
import { badRequest } from './http-utils.js'

type FormNode = Record<string, unknown> | unknown[]

/** Keys that would let a form body reach Object.prototype; real servers drop them too. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * `a[b][c]=1&list[]=x&list[]=y&n=1&n=2` → `{ a: { b: { c: '1' } }, list: ['x', 'y'], n: ['1', '2'] }`.
 * Values stay strings: form bodies carry no types, the handler converts what it needs.
 */
export function parseForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const path = keyPath(key)
    if (path.some((seg) => FORBIDDEN_KEYS.has(seg))) continue
    assign(root, path, value)
  }
  return root
}

/** `a[b][]` → `['a', 'b', '']`; a key that is not bracket notation stays whole. */
function keyPath(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key)
  if (match?.[1] === undefined) return [key]
  const rest = [...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1] ?? '')
  return [match[1], ...rest]
}

function assign(root: Record<string, unknown>, path: string[], value: string): void {
  let node: FormNode = root
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] ?? ''
    const next = path[i + 1]
    if (next === undefined) {
      setLeaf(node, seg, value)
      return
    }
    node = childContainer(node, seg, /^\d*$/.test(next))
  }
}

function setLeaf(node: FormNode, seg: string, value: string): void {
  if (Array.isArray(node)) {
    if (seg === '') node.push(value)
    else node[Number(seg)] = value
    return
  }
  const existing = node[seg]
  // A repeated plain key (`n=1&n=2`) becomes a list rather than silently keeping the last value.
  if (existing === undefined) node[seg] = value
  else if (Array.isArray(existing)) existing.push(value)
  else if (typeof existing === 'string') node[seg] = [existing, value]
}

function childContainer(node: FormNode, seg: string, wantArray: boolean): FormNode {
  const fresh = (): FormNode => (wantArray ? [] : {})
  if (Array.isArray(node)) {
    const index = seg === '' ? node.length : Number(seg)
    const existing = node[index]
    if (typeof existing === 'object' && existing !== null) return existing as FormNode
    const created = fresh()
    node[index] = created
    return created
  }
  const existing = node[seg]
  if (typeof existing === 'object' && existing !== null) return existing as FormNode
  const created = fresh()
  node[seg] = created
  return created
}

export interface FilePart {
  field: string
  filename: string
  contentType: string
  size: number
  data: Buffer
}

export interface MultipartBody {
  fields: Record<string, string>
  files: FilePart[]
}

const CRLF = Buffer.from('\r\n')
const HEADER_END = Buffer.from('\r\n\r\n')

export function multipartBoundary(contentType: string): string {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)
  const boundary = match?.[1] ?? match?.[2]
  if (boundary === undefined) throw badRequest('multipart body without a boundary parameter in content-type')
  return boundary
}

/** A small RFC 7578 parser: enough for form fields and files, no streaming. */
export function parseMultipart(body: Buffer, contentType: string): MultipartBody {
  const delimiter = Buffer.from(`--${multipartBoundary(contentType)}`)
  const result: MultipartBody = { fields: {}, files: [] }
  let pos = body.indexOf(delimiter)
  if (pos < 0) throw badRequest('multipart body does not contain its boundary')
  for (;;) {
    pos += delimiter.length
    // `--boundary--` closes the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return result
    if (body.subarray(pos, pos + 2).equals(CRLF)) pos += 2
    const headerEnd = body.indexOf(HEADER_END, pos)
    if (headerEnd < 0) throw badRequest('multipart part without a header terminator')
    const next = body.indexOf(Buffer.concat([CRLF, delimiter]), headerEnd)
    if (next < 0) throw badRequest('multipart body is not terminated by its closing boundary')
    addPart(result, body.subarray(pos, headerEnd).toString('utf8'), body.subarray(headerEnd + 4, next))
    pos = next + CRLF.length
  }
}

function addPart(result: MultipartBody, rawHeaders: string, data: Buffer): void {
  const headers = parsePartHeaders(rawHeaders)
  const disposition = headers['content-disposition'] ?? ''
  const name = dispositionParam(disposition, 'name')
  if (name === undefined) throw badRequest('multipart part without a name in content-disposition')
  const filename = dispositionParam(disposition, 'filename')
  if (filename === undefined) {
    result.fields[name] = data.toString('utf8')
    return
  }
  result.files.push({
    field: name,
    filename,
    contentType: headers['content-type'] ?? 'application/octet-stream',
    size: data.length,
    data: Buffer.from(data),
  })
}

function parsePartHeaders(raw: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of raw.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

function dispositionParam(disposition: string, param: string): string | undefined {
  const match = new RegExp(`;\\s*${param}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${param}=([^;\\s]+)`, 'i').exec(
    disposition,
  )
  const value = match?.[1] ?? match?.[2]
  return value?.replace(/\\(.)/g, '$1')
}
