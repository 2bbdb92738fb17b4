import { isRecord } from '../util/is-record.js'
import type { JsonSchema } from './types.js'

/**
 * The types a value of "anything" may have, as every target accepts them: OpenAI (strict and not)
 * and Anthropic reject or mis-handle a property without `type`, and an array type needs `items`.
 * `null` is left out on purpose: the executor reads `null` as "left out" (repair-arguments.ts).
 */
export const ANY_VALUE_TYPES: readonly string[] = ['string', 'number', 'boolean', 'object', 'array']

/** Canonical order of types in an inferred list. */
const TYPE_ORDER = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']

/** Keywords that only constrain one type: their presence says what the spec author meant. */
const KEYWORD_TYPES: Readonly<Record<string, string>> = {
  properties: 'object',
  required: 'object',
  additionalProperties: 'object',
  patternProperties: 'object',
  propertyNames: 'object',
  minProperties: 'object',
  maxProperties: 'object',
  dependentRequired: 'object',
  dependentSchemas: 'object',
  unevaluatedProperties: 'object',
  items: 'array',
  prefixItems: 'array',
  minItems: 'array',
  maxItems: 'array',
  uniqueItems: 'array',
  contains: 'array',
  minContains: 'array',
  maxContains: 'array',
  unevaluatedItems: 'array',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'number',
  exclusiveMaximum: 'number',
  multipleOf: 'number',
  minLength: 'string',
  maxLength: 'string',
  pattern: 'string',
  contentEncoding: 'string',
  contentMediaType: 'string',
}

/** OpenAPI's numeric formats; every other format (date-time, uuid, binary, byte …) is a string's. */
const FORMAT_TYPES: Readonly<Record<string, string>> = {
  int32: 'integer',
  int64: 'integer',
  integer: 'integer',
  float: 'number',
  double: 'number',
  decimal: 'number',
  number: 'number',
}

/** The "any JSON value" form: the schema's own keywords, every type, and any items. */
export function anyValueSchema(schema: JsonSchema = {}): JsonSchema {
  return { type: [...ANY_VALUE_TYPES], ...schema, items: isRecord(schema.items) ? schema.items : {} }
}

/** Whether a schema is the "any JSON value" form (anyValueSchema). */
export function isAnyValueSchema(schema: unknown): boolean {
  if (!isRecord(schema) || !Array.isArray(schema.type)) return false
  const types = schema.type as unknown[]
  return ANY_VALUE_TYPES.every((type) => types.includes(type))
}

/**
 * The JSON type(s) a schema without `type` implies: the values of `enum`/`const`; a keyword that
 * constrains only one type (properties → object, items → array, minimum → number, pattern or a
 * string format → string); the intersection of its allOf members; the union of its oneOf/anyOf
 * branches when every branch has one. Undefined when nothing implies a type (or a `$ref` decides).
 */
export function inferType(
  schema: JsonSchema,
  typeOfRef: TypeOfRef = () => undefined,
): string | string[] | undefined {
  if (schema.type !== undefined) return schema.type as string | string[]
  if (typeof schema.$ref === 'string') return typeOfRef(schema.$ref)
  let types = valueTypes(schema) ?? keywordTypes(schema)
  const typeOfMember = (member: unknown) =>
    isRecord(member) ? typeSet(inferType(member, typeOfRef)) : undefined
  const members = Array.isArray(schema.allOf) ? schema.allOf : []
  for (const member of members) {
    const own = typeOfMember(member)
    if (own) types = types ? intersect(types, own) : own
  }
  const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined
  if (Array.isArray(branches) && branches.length > 0) {
    const sets = branches.map(typeOfMember)
    if (sets.every((set) => set !== undefined)) {
      const union = normalizeNumbers(new Set(sets.flatMap((set) => [...set!])))
      types = types ? intersect(types, union) : union
    }
  }
  return types && types.size > 0 ? typeValue(types) : undefined
}

/** The type a `$ref` stands for (its definition's), when known. */
export type TypeOfRef = (ref: string) => string | string[] | undefined

/**
 * The schema with the type it implies written out; unchanged when it has one or implies none. A
 * combinator whose members are arrays keeps its type unwritten: the items live in the members,
 * and an array type without items is rejected by OpenAI.
 */
export function withInferredType(schema: JsonSchema, typeOfRef?: TypeOfRef): JsonSchema {
  if (schema.type !== undefined) return schema
  const type = inferType(schema, typeOfRef)
  if (type === undefined) return schema
  const combined = hasAnyOf(schema, COMBINATORS)
  const withoutItems = !hasAnyOf(schema, ARRAY_ITEMS)
  if (combined && withoutItems && [type].flat().includes('array')) return schema
  return { type, ...schema }
}

const COMBINATORS = ['allOf', 'oneOf', 'anyOf']
const ARRAY_ITEMS = ['items', 'prefixItems']

/**
 * Whether the schema holds any of the keywords. A keyed load whose key varies, on purpose: inlined
 * into walkKeywords, named loads here met schema shapes they had not seen and threw its optimized
 * code away; a load that sees many keys is compiled for any shape.
 */
function hasAnyOf(schema: JsonSchema, keywords: readonly string[]): boolean {
  for (let i = 0; i < keywords.length; i++) if (schema[keywords[i]!] !== undefined) return true
  return false
}

/**
 * A schema in a property position (a property, array items, a union branch, a definition): its
 * type as written or implied, else the "any JSON value" form. A `$ref` keeps its target's type.
 */
export function typedOrAnyValue(schema: JsonSchema, typeOfRef?: TypeOfRef): JsonSchema {
  if (schema.type !== undefined || typeof schema.$ref === 'string') return schema
  const typed = withInferredType(schema, typeOfRef)
  if (typed.type !== undefined) return typed
  // An unresolved union (branches of unknown type) is still a union: it says what it takes.
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) return schema
  return anyValueSchema(schema)
}

function valueTypes(schema: JsonSchema): Set<string> | undefined {
  const values = schema.const !== undefined ? [schema.const] : schema.enum
  if (!Array.isArray(values) || values.length === 0) return undefined
  return normalizeNumbers(new Set(values.map(jsonType)))
}

function keywordTypes(schema: JsonSchema): Set<string> | undefined {
  const types = new Set<string>()
  for (const key of Object.keys(schema)) {
    const type = KEYWORD_TYPES[key]
    if (type) types.add(type)
  }
  if (typeof schema.format === 'string') types.add(FORMAT_TYPES[schema.format] ?? 'string')
  return types.size > 0 ? normalizeNumbers(types) : undefined
}

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  if (typeof value === 'object') return 'object'
  return typeof value
}

function typeSet(type: unknown): Set<string> | undefined {
  if (typeof type === 'string') return new Set([type])
  if (Array.isArray(type) && type.length > 0) return new Set(type.map(String))
  return undefined
}

/** `integer` beside `number` adds nothing: a number type already takes integers. */
function normalizeNumbers(types: Set<string>): Set<string> {
  if (types.has('number')) types.delete('integer')
  return types
}

/** Types both sets allow; `integer` is the part of `number` both share. */
function intersect(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>()
  for (const type of a) {
    if (b.has(type)) out.add(type)
    else if (type === 'integer' && b.has('number')) out.add('integer')
    else if (type === 'number' && b.has('integer')) out.add('integer')
  }
  return out
}

function typeValue(types: Set<string>): string | string[] {
  const ordered = TYPE_ORDER.filter((type) => types.has(type))
  return ordered.length === 1 ? ordered[0]! : ordered
}
