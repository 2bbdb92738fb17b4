import { isRecord } from '../util/is-record.js'
import { childPointer } from '../util/json-pointer.js'
import { getOwn, setOwn } from '../util/own.js'
import { type ArgumentCandidate, asBase64File, isBinaryString, isFlattenableObject } from './input-schema.js'
import type { ProblemSink } from './problems.js'
import type { SchemaContext } from './schema-context.js'
import type { JsonSchema, PropertyEncoding, RequestBody } from './types.js'

export interface DerivedBody {
  readonly body: RequestBody
  readonly contentType: string
  readonly candidates: ArgumentCandidate[]
  readonly defs: Set<string>
}

const isJson = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type) || type === '*/*'
const isForm = (type: string) => /^application\/x-www-form-urlencoded\b/i.test(type)
const isMultipart = (type: string) => /^multipart\//i.test(type)
const isText = (type: string) => /^text\//i.test(type)

/** JSON first, then form-urlencoded, multipart, text, anything else (raw bytes). */
export function chooseBodyContentType(types: readonly string[]): string | undefined {
  return types.find(isJson) ?? types.find(isForm) ?? types.find(isMultipart) ?? types.find(isText) ?? types[0]
}

/**
 * The request body snapshot (seed 003: required flag, content types, a schema per type) and
 * the arguments it offers: the properties of an object body (JSON, form or multipart) become
 * top-level arguments; any other body is one `body` argument (SPEC §1).
 */
export function deriveRequestBody(
  raw: unknown,
  pointer: string,
  ctx: SchemaContext,
  sink: ProblemSink,
): DerivedBody | undefined {
  if (raw === undefined) return undefined
  const resolved = ctx.resolveObject(raw, pointer)
  if (!resolved) return undefined
  const node = resolved.value
  const content = isRecord(node) && isRecord(node.content) ? node.content : {}
  const contentTypes = Object.keys(content)
  const contentType = chooseBodyContentType(contentTypes)
  if (!isRecord(node) || !contentType) {
    sink.warn('body-without-content', pointer, 'the request body declares no content type; no body is sent')
    return undefined
  }
  const defs = new Set<string>()
  const schemas: Record<string, JsonSchema> = {}
  const encodings: Record<string, Record<string, PropertyEncoding>> = {}
  for (const type of contentTypes) {
    const media = content[type]
    const at = childPointer(resolved.pointer, 'content', type)
    const normalized = ctx.normalize(
      isRecord(media) && media.schema !== undefined ? media.schema : {},
      childPointer(at, 'schema'),
    )
    for (const def of normalized.defs) defs.add(def)
    setOwn(schemas, type, normalized.schema)
    if (isRecord(media) && isRecord(media.encoding)) setOwn(encodings, type, readEncodings(media.encoding))
  }
  const body: RequestBody = {
    required: node.required === true,
    ...(typeof node.description === 'string' ? { description: node.description } : {}),
    contentTypes,
    schemas,
    encodings,
  }
  const schemaPointer = childPointer(resolved.pointer, 'content', contentType, 'schema')
  const root = expandRecursiveRoot(getOwn(schemas, contentType)!, ctx.defsFor(defs))
  if (isMultipart(contentType) && !declaresParts(root)) {
    const parts = impliedParts(body, contentType, root, schemaPointer)
    sink.warn(
      'body-parts-undeclared',
      schemaPointer,
      `the ${contentType} body declares no parts; what the caller sends travels as the part${parts.length > 1 ? 's' : ''} ${parts.map((part) => JSON.stringify(part.name)).join(', ')}`,
    )
    return { body, contentType, candidates: parts, defs }
  }
  const candidates = bodyCandidates(body, contentType, root, schemaPointer)
  if (isUndeclaredForm(contentType, root))
    sink.warn(
      'body-parts-undeclared',
      schemaPointer,
      `the ${contentType} body declares no fields; the caller's object is sent as name=value pairs`,
    )
  return { body, contentType, candidates, defs }
}

/**
 * Whether a multipart schema says which parts there are: declared properties, a map of parts
 * (schema-valued additionalProperties), or alternatives and references that may declare them.
 */
function declaresParts(schema: JsonSchema): boolean {
  if (isRecord(schema.properties) && Object.keys(schema.properties).length > 0) return true
  if (schema.oneOf || schema.anyOf || schema.allOf || schema.$ref || schema.patternProperties) return true
  return isRecord(schema.additionalProperties)
}

/**
 * A multipart body that declares no parts (Jira's attachment upload: an array of files; rclone's
 * `{}`) still carries what the caller sends, in parts named as the spec implies: the keys of its
 * `encoding` map, else `file` — the name such uploads use. A part is a file (base64), or text when
 * its declared content type is text or JSON; an array schema makes it a list, one part per item.
 */
function impliedParts(
  body: RequestBody,
  contentType: string,
  schema: JsonSchema,
  pointer: string,
): ArgumentCandidate[] {
  const encodings = getOwn(body.encodings, contentType) ?? {}
  const names = Object.keys(encodings).length > 0 ? Object.keys(encodings) : ['file']
  const isList = schema.type === 'array'
  return names.map((name) => {
    const textual = /^(text\/|application\/([\w.+-]+\+)?json\b)/i.test(
      getOwn(encodings, name)?.contentType ?? '',
    )
    const note = `Sent as the ${contentType} part ${JSON.stringify(name)}${isList ? ', once per item' : ''} (the spec declares no parts).`
    const described = [schema.description ?? body.description, note].filter(Boolean).join(' ')
    const part: JsonSchema = textual ? { type: 'string' } : asBase64File({}, 'file content')
    const argument: JsonSchema = isList
      ? { type: 'array', items: part, description: described }
      : { ...part, description: textual ? described : `${described} ${part.description}` }
    return {
      name,
      location: 'body' as const,
      target: { in: 'body' as const, name },
      schema: argument,
      required: body.required,
      pointer,
    }
  })
}

/** A body that is itself a recursive type (`$ref: '#/$defs/Node'`) is opened one level so it can be flattened. */
function expandRecursiveRoot(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return schema
  const { $ref: _, ...siblings } = schema
  return { ...getOwn(defs, ref.slice('#/$defs/'.length)), ...siblings }
}

function bodyCandidates(
  body: RequestBody,
  contentType: string,
  schema: JsonSchema,
  pointer: string,
): ArgumentCandidate[] {
  const merged = schema
  const structured = isJson(contentType) || isForm(contentType) || isMultipart(contentType)
  if (structured && isFlattenableObject(merged)) return propertyCandidates(contentType, merged, pointer)
  let whole = merged
  if (!structured && !isText(contentType)) whole = asBase64File(merged, `the raw ${contentType} body`)
  else if (isUndeclaredForm(contentType, merged))
    whole = { ...merged, type: 'object', description: joinText(merged.description, FORM_FIELDS) }
  else if (isText(contentType) && whole.type === undefined) whole = { ...whole, type: 'string' }
  if (body.description && whole.description === undefined) whole = { ...whole, description: body.description }
  return [
    {
      name: 'body',
      location: 'body',
      target: { in: 'body', whole: true },
      schema: whole,
      required: body.required,
      pointer,
    },
  ]
}

const FORM_FIELDS = 'Form fields: each key is sent as one name=value pair (the spec declares no fields).'

function joinText(...texts: unknown[]): string {
  return texts.filter((text) => typeof text === 'string' && text !== '').join(' ')
}

/**
 * A form body whose schema names no fields and is not a string (`{}`, an open `type: object`): its
 * fields are whatever the caller sends. Stripe's `{ properties: {}, additionalProperties: false }`
 * takes nothing, and stays so.
 */
function isUndeclaredForm(contentType: string, schema: JsonSchema): boolean {
  if (!isForm(contentType) || declaresParts(schema) || schema.additionalProperties === false) return false
  return schema.type === undefined || schema.type === 'object'
}

function propertyCandidates(contentType: string, schema: JsonSchema, pointer: string): ArgumentCandidate[] {
  const properties = schema.properties as Record<string, JsonSchema>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  return Object.entries(properties).map(([name, property]) => ({
    name,
    location: 'body' as const,
    target: { in: 'body' as const, name },
    schema:
      isMultipart(contentType) && isBinaryString(property)
        ? asBase64File(property, 'file content')
        : property,
    // Schema-required properties stay required even when the body is not marked required: real
    // specs leave `requestBody.required` out far more often than they mean it (Twilio: 34 of 62).
    required: required.has(name),
    pointer: childPointer(pointer, 'properties', name),
  }))
}

function readEncodings(encoding: Record<string, unknown>): Record<string, PropertyEncoding> {
  const out: Record<string, PropertyEncoding> = {}
  for (const [property, value] of Object.entries(encoding)) {
    if (!isRecord(value)) continue
    setOwn(out, property, {
      ...(typeof value.contentType === 'string' ? { contentType: value.contentType } : {}),
      ...(typeof value.style === 'string' ? { style: value.style } : {}),
      ...(typeof value.explode === 'boolean' ? { explode: value.explode } : {}),
      ...(typeof value.allowReserved === 'boolean' ? { allowReserved: value.allowReserved } : {}),
    })
  }
  return out
}
