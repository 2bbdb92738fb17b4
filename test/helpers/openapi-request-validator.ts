// Checks an HTTP request against one operation of a source OpenAPI 3.1 document: method, path,
// every parameter in its declared style, and the body. Written apart from the executor (it
// parses what the executor serializes) so that the round trip proves, not repeats, the binding.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { resolvePointer } from '../../src/util/json-pointer.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

export interface IncomingRequest {
  readonly method: string
  /** Path and query as sent, percent-encoded. */
  readonly target: string
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: Buffer
}

type Json = Record<string, unknown>
type Param = {
  name: string
  in: string
  required?: boolean
  style?: string
  explode?: boolean
  schema?: unknown
  content?: Json
}

const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

/** A validator for one source document; `check` returns the broken rules (empty when accepted). */
export function createRequestValidator(sourceDocument: Json) {
  const document = requestSideView(sourceDocument)
  // The upstream reads patterns as the spec's authors meant them, not in ECMAScript's `u` mode:
  // DigitalOcean's `^[a-zA-Z0-9_\-\:]+$` is a fine regex without it and a syntax error with it.
  const ajv = (coerceTypes?: 'array') =>
    addFormats(
      new Ajv2020({
        strict: false,
        allErrors: true,
        logger: false,
        validateSchema: false,
        unicodeRegExp: false,
        ...(coerceTypes ? { coerceTypes } : {}),
      }),
    )
  const strict = ajv()
  const coercing = ajv('array')
  strict.addSchema(document, 'doc')
  coercing.addSchema(document, 'doc')
  const cache = new Map<string, ValidateFunction>()
  const validatorAt = (ajv: Ajv2020, pointer: string) => {
    const key = `${ajv === strict ? 's' : 'c'}${pointer}`
    let validate = cache.get(key)
    if (!validate) {
      validate = ajv.compile({ $ref: `doc#${pointer.split('/').map(encodeURIComponent).join('/')}` })
      cache.set(key, validate)
    }
    return validate
  }
  const resolve = (node: unknown, pointer: string): { value: Json; pointer: string } => {
    let value = node as Json
    let at = pointer
    while (value && typeof value.$ref === 'string') {
      at = decodeURIComponent(value.$ref.slice(1))
      value = resolvePointer(document, value.$ref) as Json
    }
    return { value, pointer: at }
  }
  const validate = (ajv: Ajv2020, pointer: string, value: unknown, what: string, errors: string[]) => {
    const fn = validatorAt(ajv, pointer)
    if (!fn(value))
      errors.push(
        `${what}: ${fn.errors?.map((e) => `${e.instancePath} ${e.message}`).join('; ')} (got ${JSON.stringify(value)?.slice(0, 200)})`,
      )
  }

  return {
    async check(
      operationPointer: string,
      rawPath: string,
      method: string,
      request: IncomingRequest,
    ): Promise<string[]> {
      const errors: string[] = []
      const itemPointer = operationPointer.slice(0, operationPointer.lastIndexOf('/'))
      const item = resolvePointer(document, itemPointer) as Json
      const operation = item[method] as Json
      if (request.method !== method.toUpperCase())
        errors.push(`method ${request.method}, expected ${method.toUpperCase()}`)
      const [pathPart = '', queryPart = ''] = splitTarget(request.target)
      const template = rawPath.split('#')[0]!
      const pathValues = matchTemplate(template, pathPart)
      if (!pathValues) return [...errors, `path ${pathPart} does not match ${template}`]
      const params = new Map<string, { param: Param; pointer: string }>()
      for (const [list, at] of [
        [item.parameters, `${itemPointer}/parameters`],
        [operation.parameters, `${operationPointer}/parameters`],
      ] as const) {
        for (const [i, raw] of ((list as unknown[]) ?? []).entries()) {
          const { value, pointer } = resolve(raw, `${at}/${i}`)
          const param = value as unknown as Param
          if (param.in === 'header' && RESERVED_HEADERS.has(param.name.toLowerCase())) continue
          params.set(`${param.in}:${param.name}`, { param, pointer })
        }
      }
      const query = parseQuery(queryPart)
      const cookies = parseCookies(String(request.headers.cookie ?? ''))
      const claimedQueryKeys = new Set<string>(allowedQueryKeys(document))
      for (const { param, pointer } of params.values()) {
        const schemaPointer = param.content
          ? `${pointer}/content/${escapeToken(Object.keys(param.content)[0]!)}/schema`
          : `${pointer}/schema`
        const shape = resolve(resolvePointer(document, schemaPointer), schemaPointer).value
        const found = readParameter(
          param,
          { pathValues, query, headers: request.headers, cookies },
          claimedQueryKeys,
          shape,
        )
        if (found === undefined) {
          if (param.required || param.in === 'path')
            errors.push(`${param.in} parameter ${param.name} is missing`)
          continue
        }
        const value =
          param.in === 'query' ? itemsAsJson(found, shape, (schema) => resolve(schema, '').value) : found
        validate(coercing, schemaPointer, value, `${param.in} parameter ${param.name}`, errors)
      }
      for (const [key] of query)
        if (!claimedQueryKeys.has(key)) errors.push(`query key ${key} is not a declared parameter`)
      await checkBody(operation, operationPointer, request, errors)
      return errors
    },
  }

  async function checkBody(
    operation: Json,
    operationPointer: string,
    request: IncomingRequest,
    errors: string[],
  ) {
    const contentType = String(request.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase()
    if (!operation.requestBody) {
      if (request.body.length > 0) errors.push('a body was sent to an operation that declares none')
      return
    }
    const { value: body, pointer } = resolve(operation.requestBody, `${operationPointer}/requestBody`)
    if (request.body.length === 0 && !contentType) {
      if (body.required) errors.push('the required body is missing')
      return
    }
    const content = (body.content ?? {}) as Json
    const declared =
      Object.keys(content).find((type) => type.split(';')[0]!.trim().toLowerCase() === contentType) ??
      (content['*/*'] ? '*/*' : undefined)
    if (!declared) {
      errors.push(`content type ${contentType} is not one of ${Object.keys(content).join(', ')}`)
      return
    }
    const schemaPointer = `${pointer}/content/${escapeToken(declared)}/schema`
    const schema = (resolvePointer(document, schemaPointer) ?? {}) as Json
    if (/json/.test(contentType)) {
      validate(strict, schemaPointer, JSON.parse(request.body.toString('utf8')), 'JSON body', errors)
    } else if (contentType === 'application/x-www-form-urlencoded') {
      const names = Object.keys((schema.properties as Json) ?? {})
      validate(coercing, schemaPointer, parseForm(request.body.toString('utf8'), names), 'form body', errors)
    } else if (contentType.startsWith('multipart/')) {
      validate(coercing, schemaPointer, await parseMultipart(request, schema), 'multipart body', errors)
    }
  }
}

/**
 * The document as a request validator sees it. OpenAPI: readOnly properties are not sent in
 * requests, so they are not required there either.
 */
function requestSideView(document: Json): Json {
  const copy = structuredClone(document)
  const pending: unknown[] = [copy]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object') continue
    const record = node as Json
    // 3.0 leftovers: Ajv implements `nullable` and refuses it without `type`; 3.1 has no such keyword.
    if ('nullable' in record && !('type' in record)) delete record.nullable
    if (Array.isArray(record.allOf)) dropReadOnlyRequiredAcrossAllOf(copy, record.allOf as Json[])
    if (Array.isArray(record.required) && record.properties && typeof record.properties === 'object') {
      const props = record.properties as Record<string, Json>
      record.required = (record.required as string[]).filter((name) => !isReadOnly(copy, props[name]))
    }
    pending.push(...Object.values(record))
  }
  return copy
}

/** `allOf: [{ $ref: Base }, { required: [id] }]`: a name required in one member and read-only in another. */
function dropReadOnlyRequiredAcrossAllOf(root: Json, members: Json[]): void {
  const resolved = members.map((member) =>
    typeof member.$ref === 'string' ? (resolvePointer(root, member.$ref) as Json) : member,
  )
  const readOnly = new Set<string>()
  const collect = (schema: Json | undefined, depth: number) => {
    if (!schema || depth > 6) return
    if (typeof schema.$ref === 'string') return collect(resolvePointer(root, schema.$ref) as Json, depth + 1)
    for (const [name, property] of Object.entries((schema.properties as Record<string, Json>) ?? {})) {
      if (isReadOnly(root, property)) readOnly.add(name)
    }
    for (const member of (schema.allOf as Json[] | undefined) ?? []) collect(member, depth + 1)
  }
  for (const member of resolved) collect(member, 0)
  for (const member of resolved) {
    if (member && Array.isArray(member.required))
      member.required = (member.required as string[]).filter((n) => !readOnly.has(n))
  }
}

/** readOnly on the property, behind its $ref, or on any allOf member of it. */
function isReadOnly(root: Json, schema: Json | undefined, depth = 0): boolean {
  if (!schema || depth > 8) return false
  if (schema.readOnly === true) return true
  if (typeof schema.$ref === 'string')
    return isReadOnly(root, resolvePointer(root, schema.$ref) as Json, depth + 1)
  return (
    Array.isArray(schema.allOf) &&
    (schema.allOf as Json[]).some((member) => isReadOnly(root, member, depth + 1))
  )
}

function allowedQueryKeys(document: Json): string[] {
  const schemes = ((document.components as Json)?.securitySchemes ?? {}) as Record<string, Json>
  return Object.values(schemes)
    .filter((s) => s.type === 'apiKey' && s.in === 'query')
    .map((s) => String(s.name))
}

function escapeToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1')
}

function splitTarget(target: string): [string, string] {
  const index = target.indexOf('?')
  return index < 0 ? [target, ''] : [target.slice(0, index), target.slice(index + 1)]
}

/** Raw (still encoded) values of `{name}` template variables, or undefined when the path does not match. */
function matchTemplate(template: string, path: string): Map<string, string> | undefined {
  const names: string[] = []
  const pattern = template.replace(/\{([^}]+)\}|[^{]+/g, (match, name: string | undefined) => {
    if (name) {
      names.push(name)
      return '([^/]+)'
    }
    return match.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  })
  const found = new RegExp(`^${pattern}$`).exec(path)
  if (!found) return undefined
  return new Map(names.map((name, i) => [name, found[i + 1]!]))
}

function decode(text: string): string {
  return decodeURIComponent(text)
}

function parseQuery(query: string): [string, string][] {
  if (!query) return []
  return query.split('&').map((pair) => {
    const index = pair.indexOf('=')
    return index < 0 ? [decode(pair), ''] : [decode(pair.slice(0, index)), pair.slice(index + 1)]
  })
}

function parseCookies(header: string): Map<string, string[]> {
  const cookies = new Map<string, string[]>()
  for (const part of header.split(';')) {
    const index = part.indexOf('=')
    if (index < 0) continue
    const name = part.slice(0, index).trim()
    cookies.set(name, [...(cookies.get(name) ?? []), part.slice(index + 1).trim()])
  }
  return cookies
}

interface Sources {
  readonly pathValues: Map<string, string>
  readonly query: [string, string][]
  readonly headers: IncomingRequest['headers']
  readonly cookies: Map<string, string[]>
}

/** A parameter's value, deserialized per its style and explode; undefined when absent. */
function readParameter(param: Param, sources: Sources, claimed: Set<string>, schema: unknown): unknown {
  const style = param.style ?? (param.in === 'query' || param.in === 'cookie' ? 'form' : 'simple')
  const explode = param.explode ?? style === 'form'
  const isObject = typeOf(schema) === 'object'
  if (param.content) {
    if (param.in === 'query') claimed.add(param.name)
    return readContentParameter(param, sources)
  }
  if (param.in === 'path') {
    const raw = sources.pathValues.get(param.name)
    return raw === undefined
      ? undefined
      : deserializeSimple(stripPrefix(raw, style, param.name), style, explode, isObject)
  }
  if (param.in === 'header') {
    const raw = sources.headers[param.name.toLowerCase()]
    return raw === undefined ? undefined : splitList(String(raw), ',', isObject, explode, false)
  }
  if (param.in === 'cookie') {
    const raw = sources.cookies.get(param.name)
    if (!raw) return undefined
    return raw.length > 1 ? raw.map(decode) : splitList(raw[0]!, ',', isObject, false, true)
  }
  if (style === 'deepObject') {
    const prefix = `${param.name}[`
    const entries = sources.query.filter(([key]) => key.startsWith(prefix) || key === param.name)
    for (const [key] of entries) claimed.add(key)
    if (entries.length === 0) return undefined
    return nest(
      entries.map(([key, value]) => [
        key === param.name ? [] : bracketPath(key.slice(param.name.length)),
        decode(value),
      ]),
    )
  }
  if (isObject && explode) {
    const properties = Object.keys(((schema as Json)?.properties as Json) ?? {})
    const entries = sources.query.filter(([key]) => properties.includes(key))
    for (const [key] of entries) claimed.add(key)
    return entries.length === 0 ? undefined : Object.fromEntries(entries.map(([k, v]) => [k, decode(v)]))
  }
  const values = sources.query.filter(([key]) => key === param.name).map(([, value]) => value)
  if (values.length === 0) return undefined
  claimed.add(param.name)
  if (explode && values.length > 1) return values.map(decode)
  const delimiter = style === 'spaceDelimited' ? '%20' : style === 'pipeDelimited' ? '|' : ','
  const raw = values[0]!
  if (typeOf(schema) === 'array' || isObject) return splitList(raw, delimiter, isObject, false, true)
  return decode(raw)
}

/**
 * Structured values inside a form query — a list of objects, an object property that is itself
 * structured — are undefined by OpenAPI; toolgate sends each as one JSON document (docs/executor.md),
 * so they are read back as JSON.
 */
function itemsAsJson(value: unknown, schema: unknown, deref: (schema: unknown) => unknown): unknown {
  const items = deref((schema as Json | undefined)?.items)
  if (typeOf(items) === 'object' && (Array.isArray(value) || typeof value === 'string'))
    return [value].flat().map((item) => (typeof item === 'string' ? tryJson(item) : item))
  const properties = ((schema as Json | undefined)?.properties ?? {}) as Record<string, Json>
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const property = deref(properties[key])
      const structured = typeOf(property) === 'object' || typeOf(property) === 'array'
      return [key, structured && typeof item === 'string' ? tryJson(item) : item]
    }),
  )
}

/** A parameter described by `content` carries one serialized document (JSON here). */
function readContentParameter(param: Param, sources: Sources): unknown {
  const raw =
    param.in === 'path'
      ? sources.pathValues.get(param.name)
      : param.in === 'query'
        ? sources.query.find(([key]) => key === param.name)?.[1]
        : param.in === 'header'
          ? (sources.headers[param.name.toLowerCase()] as string | undefined)
          : sources.cookies.get(param.name)?.[0]
  if (raw === undefined) return undefined
  const text = param.in === 'header' ? raw : decode(raw)
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function stripPrefix(raw: string, style: string, name: string): string {
  if (style === 'label') return raw.slice(1)
  if (style === 'matrix') return raw.startsWith(`;${name}=`) ? raw.slice(name.length + 2) : raw.slice(1)
  return raw
}

function deserializeSimple(raw: string, style: string, explode: boolean, isObject: boolean): unknown {
  const separator = style === 'label' && explode ? '.' : style === 'matrix' && explode ? ';' : ','
  const parts = raw.split(separator).map(decode)
  if (isObject)
    return explode
      ? Object.fromEntries(parts.map((p) => p.split('=') as [string, string]))
      : pairsToObject(parts)
  return parts.length > 1 ? parts : parts[0]
}

function splitList(
  raw: string,
  delimiter: string,
  isObject: boolean,
  explode: boolean,
  encoded: boolean,
): unknown {
  const parts = raw.split(delimiter).map((part) => (encoded ? decode(part) : part))
  if (isObject)
    return explode
      ? Object.fromEntries(parts.map((p) => p.split('=') as [string, string]))
      : pairsToObject(parts)
  return parts.length > 1 ? parts : parts[0]
}

function pairsToObject(parts: string[]): Json {
  const object: Json = {}
  for (let i = 0; i + 1 < parts.length; i += 2) object[parts[i]!] = parts[i + 1]
  return object
}

function typeOf(schema: unknown): string | undefined {
  const type = (schema as Json | undefined)?.type
  if (Array.isArray(type)) return type.find((t) => t !== 'null')
  if (typeof type === 'string') return type
  if ((schema as Json | undefined)?.properties) return 'object'
  return undefined
}

/** `[a][0][b]` → ['a', '0', 'b']. */
function bracketPath(rest: string): string[] {
  return [...rest.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)
}

/** Key paths and values → nested objects; objects whose keys are all 0..n become arrays. */
function nest(entries: [string[], string][]): unknown {
  let root: unknown
  for (const [path, value] of entries) {
    if (path.length === 0) {
      root = value
      continue
    }
    root = root && typeof root === 'object' ? root : {}
    let node = root as Json
    path.forEach((key, i) => {
      if (i === path.length - 1) {
        node[key] = value
        return
      }
      if (node[key] === undefined) node[key] = {}
      node = node[key] as Json
    })
  }
  return arraysFromIndices(root)
}

function arraysFromIndices(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  const record = value as Json
  const keys = Object.keys(record)
  const mapped = Object.fromEntries(keys.map((k) => [k, arraysFromIndices(record[k])]))
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => mapped[k])
  return mapped
}

/** A form body: declared names taken as they are, repeated keys as lists, brackets as nesting. */
export function parseForm(text: string, declared: readonly string[]): Json {
  const flat: [string[], string][] = []
  const lists = new Map<string, string[]>()
  for (const pair of text ? text.split('&') : []) {
    const index = pair.indexOf('=')
    const key = decode(index < 0 ? pair : pair.slice(0, index))
    const value = index < 0 ? '' : decode(pair.slice(index + 1))
    if (declared.includes(key) || !key.includes('[')) lists.set(key, [...(lists.get(key) ?? []), value])
    else {
      const base = key.slice(0, key.indexOf('['))
      flat.push([[base, ...bracketPath(key.slice(base.length))], value])
    }
  }
  const nested = (nest(flat) ?? {}) as Json
  for (const [key, values] of lists) nested[key] = values.length > 1 ? values : values[0]
  return nested
}

/** Multipart, parsed with the standard FormData parser; file parts stand in as their text. */
async function parseMultipart(request: IncomingRequest, schema: Json): Promise<Json> {
  const contentType = String(request.headers['content-type'])
  const form = await new Response(request.body, { headers: { 'content-type': contentType } }).formData()
  const properties = (schema.properties ?? {}) as Record<string, Json>
  const value: Json = {}
  for (const [name, part] of form.entries()) {
    const property = properties[name] ?? {}
    const text = typeof part === 'string' ? part : await part.text()
    const structured = typeOf(property) === 'object' || typeOf(property) === 'array'
    value[name] = structured ? tryJson(text) : text
  }
  return value
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
