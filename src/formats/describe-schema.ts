import { isAnyValueSchema } from '../catalog/infer-type.js'
import type { JsonSchema } from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'

const MAX_ENUM_VALUES = 25
const MAX_FIELDS = 12
const MAX_LENGTH = 1_000

export interface DescribeOptions {
  /** Mention enum values (formats that cannot carry `enum`). */
  readonly enumValues: boolean
  /** Describe array items and object fields (formats that cannot nest schemas). */
  readonly structure: boolean
  /** Mention format, bounds, pattern, examples, nullability (formats that drop those keywords). */
  readonly constraints: boolean
}

/**
 * A schema's description plus, in words, what a format cannot carry as keywords: enum values,
 * default, format, bounds, examples, item and field shapes — "One of: a, b. Default: a." (seed
 * 000), "Default: 10." (seed 002). Cut at a sentence boundary to stay readable.
 */
export function describeSchema(schema: JsonSchema, fallback: string, options: DescribeOptions): string {
  const own =
    typeof schema.description === 'string' && schema.description.trim() !== ''
      ? schema.description.trim()
      : fallback
  const hints = schemaHints(schema, options)
  return cutAtSentence([...(own ? [sentence(own)] : []), ...hints].join(' '), MAX_LENGTH)
}

function schemaHints(schema: JsonSchema, options: DescribeOptions): string[] {
  const hints: string[] = []
  if (options.enumValues && Array.isArray(schema.enum)) hints.push(`One of: ${listValues(schema.enum)}.`)
  if (options.enumValues && schema.const !== undefined) hints.push(`Must be ${literal(schema.const)}.`)
  if (schema.default !== undefined) hints.push(`Default: ${literal(schema.default)}.`)
  if (options.constraints) {
    if (typeof schema.format === 'string') hints.push(`Format: ${schema.format}.`)
    // Said once: a file argument's own description already says it travels base64-encoded.
    if (schema.contentEncoding === 'base64' && !/base64/i.test(String(schema.description ?? '')))
      hints.push('Base64-encoded.')
    hints.push(...boundHints(schema))
    if (isNullable(schema)) hints.push('May be null.')
    if (Array.isArray(schema.examples) && schema.examples.length > 0)
      hints.push(`Example: ${literal(schema.examples[0])}.`)
  }
  if (options.structure) hints.push(...structureHints(schema))
  return hints
}

function boundHints(schema: JsonSchema): string[] {
  const hints: string[] = []
  const pairs: [string, string][] = [
    ['minimum', 'Minimum'],
    ['maximum', 'Maximum'],
    ['exclusiveMinimum', 'Greater than'],
    ['exclusiveMaximum', 'Less than'],
    ['minLength', 'Minimum length'],
    ['maxLength', 'Maximum length'],
    ['minItems', 'At least this many items'],
    ['maxItems', 'At most this many items'],
    ['pattern', 'Pattern'],
  ]
  for (const [keyword, label] of pairs) {
    const value = schema[keyword]
    if (typeof value === 'number' || typeof value === 'string') hints.push(`${label}: ${value}.`)
  }
  return hints
}

function structureHints(schema: JsonSchema): string[] {
  if (isAnyValueSchema(schema)) return ['Any JSON value.']
  if (isRecord(schema.items)) return [`Items: ${shape(schema.items)}.`]
  const fields = fieldList(schema)
  if (fields) return [`Fields: ${fields}.`]
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined
  if (Array.isArray(variants)) return [`One of these shapes: ${variants.map(shape).join(' | ')}.`]
  return []
}

/** A compact, one-level sketch: `string, one of a, b` or `object with id (integer, required), name (string)`. */
export function shape(schema: JsonSchema): string {
  if (!isRecord(schema)) return 'any value'
  if (typeof schema.$ref === 'string') return `${schema.$ref.split('/').pop()} (recursive)`
  const type = typeName(schema)
  const enumPart = Array.isArray(schema.enum) ? `, one of ${listValues(schema.enum)}` : ''
  const fields = fieldList(schema, false)
  if (fields) return `${typeof schema.title === 'string' ? `${schema.title}: ` : ''}object with ${fields}`
  if (isRecord(schema.items) && !isAnyValueSchema(schema)) return `array of ${typeName(schema.items)}`
  return type + enumPart
}

function fieldList(schema: JsonSchema, nested = true): string | undefined {
  if (!isRecord(schema.properties)) return undefined
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const entries = Object.entries(schema.properties as Record<string, JsonSchema>)
  if (entries.length === 0) return undefined
  const listed = entries.slice(0, MAX_FIELDS).map(([name, field]) => {
    const detail = [nested ? shape(field) : typeName(field), required.has(name) ? 'required' : ''].filter(
      Boolean,
    )
    return `${name} (${detail.join(', ')})`
  })
  const more = entries.length > MAX_FIELDS ? `, and ${entries.length - MAX_FIELDS} more` : ''
  return listed.join(', ') + more
}

/** The JSON Schema type in words; unions and combinators named by their members. */
export function typeName(schema: JsonSchema): string {
  if (!isRecord(schema) || isAnyValueSchema(schema)) return 'any value'
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.filter((t) => t !== 'null').join(' or ') || 'null'
  if (schema.properties) return 'object'
  if (schema.items) return 'array'
  if (typeof schema.$ref === 'string') return 'object'
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined
  if (Array.isArray(variants)) return [...new Set(variants.map(typeName))].join(' or ')
  return 'any value'
}

function isNullable(schema: JsonSchema): boolean {
  return Array.isArray(schema.type) && schema.type.includes('null') && schema.type.length > 1
}

export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_ENUM_VALUES).map(literal).join(', ')
  return values.length > MAX_ENUM_VALUES ? `${shown} (and ${values.length - MAX_ENUM_VALUES} more)` : shown
}

/** A value in words: a string as it is, an empty one (and anything else) as JSON, so never "Default: .". */
export function literal(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' ? value : JSON.stringify(value)
}

/** Ends a text with a full stop unless it already ends a sentence. */
export function sentence(text: string): string {
  return /[.!?:]$/.test(text) ? text : `${text}.`
}

/** Cuts at the last sentence end that fits; a text with none is cut at a word boundary with an ellipsis. */
export function cutAtSentence(text: string, limit: number): string {
  if (text.length <= limit) return text
  const head = text.slice(0, limit)
  const end = Math.max(
    head.lastIndexOf('. '),
    head.lastIndexOf('! '),
    head.lastIndexOf('? '),
    head.lastIndexOf('.\n'),
  )
  if (end > limit / 3) return head.slice(0, end + 1)
  return `${head.slice(0, head.lastIndexOf(' ') > 0 ? head.lastIndexOf(' ') : limit - 1).trimEnd()}…`
}
