import { isRecord } from '../util/is-record.js'
import { childPointer } from '../util/json-pointer.js'
import { getOwn, setOwn } from '../util/own.js'
import type { SchemaContext } from './schema-context.js'
import type { JsonSchema, ToolOutput } from './types.js'

/**
 * The response side of a tool (issue 16, MCP `outputSchema`): the schema of its success answer,
 * made lenient. Specs lie about responses far more than about requests, and MCP clients (SDK 1.x
 * and 2.x) throw on a result whose structuredContent fails the advertised schema. So the schema
 * keeps structure and types and drops every constraint specs routinely get wrong (docs/catalog.md
 * "Typed results").
 */

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/** The keywords an output schema keeps, each with the value shape it needs; every other is dropped. */
const OUTPUT_KEYWORDS: Readonly<Record<string, (value: unknown) => boolean>> = {
  type: () => true,
  properties: isRecord,
  // `items: false` (no items) is a constraint; a tuple (`items: [a, b]`) is kept as prefixItems.
  items: (value) => typeof value !== 'boolean',
  prefixItems: Array.isArray,
  // A map's value schema is structure; `false` closes the object, `true` says nothing.
  additionalProperties: isRecord,
  allOf: Array.isArray,
  anyOf: Array.isArray,
  oneOf: Array.isArray,
  title: (value) => typeof value === 'string',
  description: (value) => typeof value === 'string',
  deprecated: (value) => typeof value === 'boolean',
  readOnly: (value) => typeof value === 'boolean',
  writeOnly: (value) => typeof value === 'boolean',
}

/** Whether a response-side schema keeps this keyword (enum and const only lend their type: see loosenOutputSchema). */
export function isOutputKeyword(key: string, value: unknown): boolean {
  const accepts = getOwn(OUTPUT_KEYWORDS, key)
  return accepts?.(value) === true
}

/**
 * The lenient finish of one response-side schema node, its keywords already filtered and walked:
 * `oneOf` becomes `anyOf` (open objects without `required` match several branches, which oneOf
 * refuses), the type `enum`/`const` imply stands in for them, and every type also allows null.
 */
export function loosenOutputSchema(
  source: Record<string, unknown>,
  out: Record<string, unknown>,
): JsonSchema {
  let schema = out
  if (Array.isArray(schema.oneOf)) {
    const { oneOf, ...rest } = schema
    schema = Array.isArray(rest.anyOf)
      ? { ...rest, allOf: [...((rest.allOf as unknown[] | undefined) ?? []), { anyOf: oneOf }] }
      : { ...rest, anyOf: oneOf }
  }
  const types = declaredTypes(schema.type) ?? impliedTypes(source)
  if (types === undefined) {
    delete schema.type
    return schema
  }
  if (!types.includes('null')) types.push('null')
  schema.type = types
  return schema
}

/** Valid JSON type names of a `type` keyword (Swagger's `file` is a string), or undefined. */
function declaredTypes(type: unknown): string[] | undefined {
  // One loop over the names, no intermediate arrays: this runs on every response schema node, and
  // inlined into walkKeywords, arrays of varying elements kinds here threw its optimized code away.
  const valid: string[] = []
  if (Array.isArray(type)) {
    for (let i = 0; i < type.length; i++) addJsonType(valid, type[i])
  } else addJsonType(valid, type)
  return valid.length > 0 ? valid : undefined
}

/** Adds a valid JSON type name (Swagger's `file` is a string) once, in first-seen order. */
function addJsonType(valid: string[], name: unknown): void {
  const type = name === 'file' ? 'string' : name
  if (typeof type === 'string' && JSON_TYPES.has(type) && !valid.includes(type)) valid.push(type)
}

/** `enum: [a, b]` or `const: a` without a `type`: the types of their values. */
function impliedTypes(source: Record<string, unknown>): string[] | undefined {
  const values = Array.isArray(source.enum) ? source.enum : 'const' in source ? [source.const] : undefined
  if (!values || values.length === 0) return undefined
  const types = new Set(values.map(typeOfValue))
  if (types.has('number')) types.delete('integer')
  return [...types]
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value === 'boolean' || typeof value === 'string' ? typeof value : 'object'
}

/**
 * A property named like a member every object inherits (`constructor`, `toString`): Ajv, as the
 * MCP SDK clients configure it, reads `data.constructor` and finds Object's own function when the
 * answer lacks the key, so any type fails. The key stays, unchecked: only its annotations remain.
 * (`__proto__` keeps its schema: Ajv leaves that name out of its checks altogether.)
 */
export function outputPropertySchema(name: string, schema: JsonSchema): JsonSchema {
  if (name === '__proto__' || !(name in Object.prototype)) return schema
  return annotationsOf(schema)
}

/** JSON media types: `application/json`, `…+json`, `text/json`, with parameters or not. */
const EXACT_JSON = /^application\/json\s*(;|$)/i
const ANY_JSON = /^[\w.-]+\/([\w.-]+\+)?json\s*(;|$)/i

/**
 * A tool's typed result (SPEC §2 MCP): the success response is the lowest explicit 2xx code, else
 * `2XX` (never `default`); its JSON content; its schema, normalized for the response side. Or
 * why there is none, said as the reason `/catalog` shows. `pointer` is the operation's.
 */
export function deriveToolOutput(
  responses: unknown,
  pointer: string,
  ctx: SchemaContext,
  outputSchemaNodes: number,
): ToolOutput {
  const status = successStatus(responses)
  if (!status) return { reason: 'no 2xx response' }
  const resolved = ctx.resolveObject(
    (responses as Record<string, unknown>)[status],
    childPointer(pointer, 'responses', status),
  )
  if (!resolved || !isRecord(resolved.value)) return { reason: `the ${status} response cannot be read` }
  const content = isRecord(resolved.value.content) ? resolved.value.content : {}
  const types = Object.keys(content)
  if (types.length === 0) return { reason: `the ${status} response has no content` }
  const contentType = types.find((type) => EXACT_JSON.test(type)) ?? types.find((type) => ANY_JSON.test(type))
  if (!contentType) return { reason: `the ${status} response is not JSON (${types.join(', ')})` }
  const media = content[contentType]
  if (!isRecord(media) || media.schema === undefined)
    return { reason: `the ${status} JSON response has no schema` }
  // An array answer (GitHub: 263 of 1,223 operations) is refused before its items are walked.
  if (isArrayOnly(ctx.followRefs(media.schema)))
    return { reason: `the ${status} JSON response is an array, MCP output schemas must be objects` }
  const at = childPointer(resolved.pointer, 'content', contentType, 'schema')
  const normalized = ctx.output.normalize(media.schema, at)
  const defs = ctx.output.defsFor(normalized.defs)
  const root = openRecursiveRoot(normalized.schema, defs)
  const kinds = kindsOf(root, defs, new Set())
  if (kinds === 'any') return { reason: `the ${status} JSON response schema does not say it is an object` }
  if (kinds.size !== 1 || !kinds.has('object'))
    return {
      reason: `the ${status} JSON response is ${describeKinds(kinds)}, MCP output schemas must be objects`,
    }
  // The root is an object, never null: MCP requires `type: "object"` there.
  const schema: JsonSchema = {
    ...root,
    type: 'object',
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  }
  if (countNodes(schema, outputSchemaNodes) <= outputSchemaNodes) return { status, contentType, schema }
  const top = topLevelOf(root)
  if (countNodes(top, outputSchemaNodes) <= outputSchemaNodes)
    return { status, contentType, schema: top, topLevelOnly: true }
  return {
    reason: `the ${status} JSON response schema has more than ${outputSchemaNodes} nodes even at its top level (limits.outputSchemaNodes)`,
  }
}

/**
 * Objects and arrays in a schema, each occurrence counted, as countSchemaNodes does, up to just
 * past `limit`; each shared subtree (a component inlined in many responses: Kubernetes'
 * ObjectMeta) is counted once and remembered, so a thousand tools do not walk it a thousand times.
 */
const nodeCounts = new WeakMap<object, number>()
/** For a subtree whose count was cut short: the largest limit it is known to exceed. */
const exceeds = new WeakMap<object, number>()
function countNodes(node: object, limit: number): number {
  // A node without objects inside ({ type: 'string' }, most of them) is 1, and not worth a lookup.
  if (!hasObjectInside(node)) return 1
  const known = nodeCounts.get(node)
  if (known !== undefined) return known
  if ((exceeds.get(node) ?? -1) >= limit) return limit + 1
  let count = 1
  const children = Object.values(node)
  for (let i = 0; i < children.length; i++) {
    const child = children[i]
    if (child !== null && typeof child === 'object') count += countNodes(child, limit)
    if (count > limit) {
      exceeds.set(node, Math.max(limit, exceeds.get(node) ?? -1))
      return count
    }
  }
  nodeCounts.set(node, count)
  return count
}

function hasObjectInside(node: object): boolean {
  // Indexed: called per node of every output schema, in cold code where a for…of allocates per step.
  const children = Object.values(node)
  for (let i = 0; i < children.length; i++) {
    const child = children[i]
    if (child !== null && typeof child === 'object') return true
  }
  return false
}

function isArrayOnly(schema: unknown): boolean {
  if (!isRecord(schema)) return false
  const types = Array.isArray(schema.type) ? schema.type.filter((type) => type !== 'null') : [schema.type]
  return types.length === 1 && types[0] === 'array'
}

const ANNOTATIONS = ['title', 'description', 'deprecated'] as const

/** An object schema too big to send: its own annotations, and each top-level property's type and annotations. */
function topLevelOf(root: JsonSchema): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  for (const [name, property] of Object.entries(isRecord(root.properties) ? root.properties : {})) {
    const summary = annotationsOf(property as JsonSchema)
    if (Array.isArray((property as JsonSchema).type)) summary.type = (property as JsonSchema).type
    setOwn(properties, name, summary)
  }
  return { type: 'object', ...annotationsOf(root), properties }
}

function annotationsOf(schema: JsonSchema): Record<string, unknown> {
  const annotations: Record<string, unknown> = {}
  for (const key of ANNOTATIONS) if (schema[key] !== undefined) annotations[key] = schema[key]
  return annotations
}

/** The lowest explicit 2xx code, then `2XX`; `default` is never a success. */
function successStatus(responses: unknown): string | undefined {
  if (!isRecord(responses)) return undefined
  const codes = Object.keys(responses)
  const explicit = codes.filter((code) => /^2\d\d$/.test(code)).sort()
  return explicit[0] ?? codes.find((code) => /^2XX$/i.test(code))
}

/** A root that is itself a recursive type (`$ref: '#/$defs/Node'`) is opened one level, so it can say `type: object`. */
function openRecursiveRoot(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const ref = schema.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return schema
  const { $ref: _, ...siblings } = schema
  return { ...getOwn(defs, ref.slice('#/$defs/'.length)), ...siblings }
}

/** The JSON types a (normalized, lenient) schema admits besides null, or `any` when it does not say. */
function kindsOf(
  schema: JsonSchema,
  defs: Record<string, JsonSchema>,
  seen: Set<string>,
): Set<string> | 'any' {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.slice('#/$defs/'.length)
    const target = getOwn(defs, name)
    if (!target || seen.has(name)) return 'any'
    seen.add(name)
    return kindsOf(target, defs, seen)
  }
  if (Array.isArray(schema.type)) return new Set((schema.type as string[]).filter((type) => type !== 'null'))
  // Declared properties say object even when branches beside them only add `required` (now dropped).
  if (schema.properties || schema.additionalProperties) return new Set(['object'])
  for (const member of (schema.allOf as JsonSchema[] | undefined) ?? []) {
    const kinds = kindsOf(member, defs, seen)
    if (kinds !== 'any') return kinds
  }
  if (Array.isArray(schema.anyOf)) {
    const union = new Set<string>()
    for (const member of schema.anyOf as JsonSchema[]) {
      const kinds = kindsOf(member, defs, seen)
      if (kinds === 'any') return 'any'
      for (const kind of kinds) union.add(kind)
    }
    return union
  }
  if (schema.items || schema.prefixItems) return new Set(['array'])
  return 'any'
}

function describeKinds(kinds: ReadonlySet<string>): string {
  if (kinds.size === 0) return 'always null'
  if (kinds.size === 1) return kinds.has('array') ? 'an array' : `a ${[...kinds][0]}`
  return `not always an object (${[...kinds].join(', ')})`
}
