import { shortHash } from '../util/hash.js'
import { isRecord } from '../util/is-record.js'
import { setOwn } from '../util/own.js'
import { typedOrAnyValue } from './infer-type.js'
import type { ProblemSink } from './problems.js'
import type { ArgumentTarget, JsonSchema, Parameter, ParameterLocation } from './types.js'

/** One argument an operation wants, before names are made unique and safe. */
export interface ArgumentCandidate {
  readonly name: string
  readonly location: ParameterLocation | 'body'
  readonly target: ArgumentTarget
  readonly schema: JsonSchema
  readonly required: boolean
  readonly pointer: string
}

export interface InputSchemaResult {
  readonly inputSchema: JsonSchema
  readonly arguments: Record<string, ArgumentTarget>
}

/** Anthropic and Bedrock reject a whole request whose property keys break this (SPEC §1). */
export const ARGUMENT_KEY_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/
const MAX_KEY_LENGTH = 64
/** A key sanitizeArgumentKey keeps: allowed characters, no leading or trailing `_.-` (nor a run of `_`, checked apart). */
const SAFE_KEY = /^[a-zA-Z0-9](?:[a-zA-Z0-9_.-]*[a-zA-Z0-9])?$/
const LOCATION_PRIORITY: readonly (ParameterLocation | 'body')[] = [
  'path',
  'query',
  'header',
  'cookie',
  'body',
]

/**
 * Comparison operators in a name are its meaning, not noise: Twilio's range filters
 * `DateCreated<` and `DateCreated>` must not both become `DateCreated` (and clash with it).
 */
const OPERATOR_WORDS: readonly [RegExp, string][] = [
  [/<=/g, '_lte_'],
  [/>=/g, '_gte_'],
  [/!=/g, '_ne_'],
  [/</g, '_lt_'],
  [/>/g, '_gt_'],
]

/**
 * `filter[name]` → `filter_name`, `$top` → `top`, `DateCreated<` → `DateCreated_lt`, `café` →
 * `cafe`; a name with nothing left gets `arg_<hash>`, an over-long one keeps a stable hash of the original.
 */
export function sanitizeArgumentKey(name: string): string {
  // Most names are already keys: what the rules below would leave as it is.
  if (name.length <= MAX_KEY_LENGTH && SAFE_KEY.test(name) && !name.includes('__')) return name
  let text = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
  for (const [operator, word] of OPERATOR_WORDS) text = text.replace(operator, word)
  const cleaned = text
    .replace(/[^a-zA-Z0-9_.-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '')
  const key = cleaned === '' ? `arg_${shortHash(name)}` : cleaned
  if (key.length <= MAX_KEY_LENGTH) return key
  return `${key.slice(0, MAX_KEY_LENGTH - 9).replace(/[_.-]+$/, '')}_${shortHash(name)}`
}

/** The argument a parameter becomes: its x-cli-name or wire name, its schema with the parameter's description. */
export function parameterCandidate(
  parameter: Parameter,
  cliName: string | undefined,
  pointer: string,
): ArgumentCandidate {
  const schema: Record<string, unknown> = { ...parameter.schema }
  if (parameter.description && schema.description === undefined) schema.description = parameter.description
  if (parameter.deprecated) schema.deprecated = true
  return {
    name: cliName ?? parameter.name,
    location: parameter.in,
    target: { in: parameter.in, name: parameter.name },
    schema,
    required: parameter.required,
    pointer,
  }
}

/**
 * One flat object schema for all arguments (SPEC §1): names sanitized, clashes resolved by
 * location priority (path, query, header, cookie, body — the earlier keeps the bare name, the
 * later gets `<location>_<name>`), and the binding that maps every key back to the request.
 */
export function assembleInputSchema(
  candidates: readonly ArgumentCandidate[],
  defs: Record<string, JsonSchema>,
  sink: ProblemSink,
): InputSchemaResult {
  // A Map for the names taken, not an object: argument names come from the spec (`constructor`,
  // `__proto__`); the objects are filled through setOwn, so even a `__proto__` key stays a key.
  const taken = new Map<string, JsonSchema>()
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const args: Record<string, ArgumentTarget> = {}
  // By location priority, declaration order kept within one (what a stable sort by priority
  // gives), one pass per location: no sorted copy per tool.
  for (let p = 0; p < LOCATION_PRIORITY.length; p++) {
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i]!
      if (candidate.location !== LOCATION_PRIORITY[p]) continue
      const key = uniqueKey(candidate, taken, sink)
      const schema = typedOrAnyValue(candidate.schema)
      const property = key === candidate.name ? schema : withWireNote({ ...candidate, schema })
      taken.set(key, property)
      setOwn(properties, key, property)
      setOwn(args, key, candidate.target)
      if (candidate.required) required.push(key)
    }
  }
  const inputSchema: Record<string, unknown> = { type: 'object', properties }
  if (required.length > 0) inputSchema.required = required
  inputSchema.additionalProperties = false
  if (Object.keys(defs).length > 0) inputSchema.$defs = defs
  return { inputSchema, arguments: args }
}

/** A renamed argument says what it is called on the wire, so nothing about it is lost. */
function withWireNote(candidate: ArgumentCandidate): JsonSchema {
  const where = candidate.location === 'body' ? 'body property' : `${candidate.location} parameter`
  const wireName = 'name' in candidate.target ? candidate.target.name : candidate.name
  const note = `Sent as ${where} ${JSON.stringify(wireName)}.`
  const description =
    typeof candidate.schema.description === 'string' ? `${candidate.schema.description} ${note}` : note
  return { ...candidate.schema, description }
}

function uniqueKey(
  candidate: ArgumentCandidate,
  taken: ReadonlyMap<string, unknown>,
  sink: ProblemSink,
): string {
  const key = sanitizeArgumentKey(candidate.name)
  if (key !== candidate.name) {
    sink.warn(
      'parameter-key-sanitized',
      candidate.pointer,
      `argument ${JSON.stringify(candidate.name)} is offered as ${key}`,
    )
  }
  if (!taken.has(key)) return key
  const prefixed = sanitizeArgumentKey(`${candidate.location}_${candidate.name}`)
  let renamed = prefixed
  // A hash of where the input is declared and what it is called: stable, and lengthened until free,
  // so no input can overwrite another (undeclared path variables share one pointer).
  if (taken.has(renamed)) renamed = sanitizeArgumentKey(`${prefixed}_${shortHash(candidate.pointer)}`)
  for (let length = 12; taken.has(renamed); length += 4)
    renamed = sanitizeArgumentKey(
      `${prefixed}_${shortHash(`${candidate.pointer}\n${candidate.location}:${candidate.name}`, length)}`,
    )
  sink.warn(
    'argument-clash',
    candidate.pointer,
    `${candidate.location} argument ${key} clashes with an earlier one; it is offered as ${renamed}`,
  )
  return renamed
}

/**
 * Whether an object body can be spread into top-level arguments: a plain object with
 * declared properties and no root combinators or schema-valued additionalProperties.
 */
export function isFlattenableObject(schema: JsonSchema): boolean {
  if (!isRecord(schema.properties) || Object.keys(schema.properties).length === 0) return false
  if (schema.type !== undefined && schema.type !== 'object') return false
  if (schema.oneOf || schema.anyOf || schema.allOf || schema.not || schema.if || schema.$ref) return false
  if (schema.patternProperties || schema.dependentSchemas || schema.unevaluatedProperties) return false
  return !isRecord(schema.additionalProperties)
}

/** What a base64 string keeps of the schema it stands for: its annotations, not its structure. */
const FILE_ANNOTATIONS = ['title', 'deprecated', 'readOnly', 'writeOnly', 'contentMediaType'] as const

/**
 * A file part or binary body: agents send text, so the bytes travel base64-encoded. The string
 * keeps no `properties` or `items` of an object or XML body it encodes: they describe the bytes
 * inside, not the string.
 */
export function asBase64File(schema: JsonSchema, what: string): JsonSchema {
  // In the schema's own key order, so a rendered document stays byte for byte as it was.
  const kept = Object.fromEntries(
    Object.entries(schema).filter(
      ([key]) =>
        key === 'type' || key === 'description' || (FILE_ANNOTATIONS as readonly string[]).includes(key),
    ),
  )
  const description = typeof schema.description === 'string' ? `${schema.description} ` : ''
  return {
    ...kept,
    type: 'string',
    contentEncoding: 'base64',
    description: `${description}(${what}, base64-encoded)`,
  }
}

export function isBinaryString(schema: JsonSchema): boolean {
  if (schema.type !== 'string') return false
  return (
    schema.format === 'binary' ||
    (schema.contentMediaType !== undefined && schema.contentEncoding === undefined)
  )
}
