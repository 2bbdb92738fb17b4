import { isAnyValueSchema } from '../catalog/infer-type.js'
import type { JsonSchema } from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'
import { setOwn } from '../util/own.js'
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from '../util/schema-keywords.js'
import { cutAtSentence, describeSchema, listValues, literal, sentence, shape } from './describe-schema.js'

/**
 * Per-target rewrites of a tool's canonical input schema (SPEC §2: the published rules are met by
 * transforming, never by dropping a tool). The canonical schema is already an object root with
 * safe keys, items on every array and only `#/$defs` references (catalog).
 */

const MAX_PROPERTY_DESCRIPTION = 1_000
/** OpenAI structured outputs: at most 10 levels of nesting (current documentation). */
const STRICT_MAX_DEPTH = 10
/** Anthropic rejects `$ref` in tool schemas; recursive definitions are unrolled this deep. */
const CLAUDE_RECURSION_DEPTH = 2

/** String formats OpenAI's strict mode accepts; others become words in the description. */
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
])
/** Keywords OpenAI's strict converter rejects (openai SDK `toStrictJsonSchema`) or documents as unsupported. */
const STRICT_DROPPED = new Set([
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'title',
])

type Schema = Record<string, unknown>

/** Applies `fn` to every direct sub-schema (properties, items, combinators, $defs …). */
export function mapSubschemas(schema: Schema, fn: (sub: Schema, key: string) => Schema): Schema {
  const out: Schema = { ...schema }
  for (const key of ['properties', '$defs', ...SCHEMA_MAP_KEYWORDS]) {
    const map = schema[key]
    if (isRecord(map))
      out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, isRecord(v) ? fn(v, key) : v]))
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = schema[key]
    if (Array.isArray(list)) out[key] = list.map((v) => (isRecord(v) ? fn(v, key) : v))
  }
  for (const key of SCHEMA_KEYWORDS) {
    const sub = schema[key]
    if (isRecord(sub)) out[key] = fn(sub, key)
  }
  return out
}

/** Every property description carries its default (seed 002) and is cut at a sentence boundary. */
function describeProperties(schema: Schema, keepDefault: boolean): Schema {
  const rewritten = mapSubschemas(schema, (sub) => describeProperties(sub, keepDefault))
  if (!keepDefault) moveDefaultIntoDescription(rewritten)
  if (!isRecord(rewritten.properties)) return rewritten
  rewritten.properties = Object.fromEntries(
    Object.entries(rewritten.properties as Record<string, Schema>).map(([name, property]) => {
      const withText: Schema = { ...property }
      const description = describeSchema(property, '', {
        enumValues: false,
        structure: false,
        constraints: false,
      })
      if (description !== '') withText.description = cutAtSentence(description, MAX_PROPERTY_DESCRIPTION)
      if (!keepDefault) delete withText.default
      return [name, withText]
    }),
  )
  return rewritten
}

/** A default anywhere (array items, branches) said in words and removed, where OpenAI would not take it. */
function moveDefaultIntoDescription(schema: Schema): void {
  if (schema.default === undefined) return
  const said = `Default: ${literal(schema.default)}.`
  const own = typeof schema.description === 'string' ? schema.description : ''
  if (!own.includes(said)) schema.description = own ? `${sentence(own)} ${said}` : said
  delete schema.default
}

/** OpenAI, non-strict: the canonical schema with defaults in words (OpenAI does not list `default`). */
export function openAISchema(inputSchema: JsonSchema): Schema {
  return describeProperties(inputSchema as Schema, false)
}

/** Claude: defaults kept and described; recursive `$defs` unrolled, since Anthropic rejects `$ref`. */
export function claudeSchema(inputSchema: JsonSchema): Schema {
  const described = describeProperties(inputSchema as Schema, true)
  const defs = (described.$defs ?? {}) as Record<string, Schema>
  const { $defs: _, ...root } = described
  return inlineRefs(root, defs, new Map())
}

function inlineRefs(schema: Schema, defs: Record<string, Schema>, depth: Map<string, number>): Schema {
  const ref = schema.$ref
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
    const name = ref.slice('#/$defs/'.length)
    const seen = depth.get(name) ?? 0
    const { $ref: __, ...siblings } = schema
    if (seen >= CLAUDE_RECURSION_DEPTH || !defs[name]) {
      const note = `A ${name} (recursive; nesting deeper than this is not described).`
      return {
        type: 'object',
        ...siblings,
        description: siblings.description ? `${sentence(String(siblings.description))} ${note}` : note,
      }
    }
    const next = new Map(depth).set(name, seen + 1)
    return inlineRefs({ ...defs[name], ...siblings }, defs, next)
  }
  return mapSubschemas(schema, (sub) => inlineRefs(sub, defs, depth))
}

/**
 * OpenAI strict mode: every object closed, every property required, optional ones nullable —
 * and "Optional" said in words, so which arguments were optional is not lost. What strict mode
 * cannot express (free-form maps, tuples, `allOf`, values of any type, nesting past 10 levels)
 * becomes a string carrying JSON, which the executor decodes back (docs/executor.md).
 */
export function openAIStrictSchema(inputSchema: JsonSchema): Schema {
  const described = describeProperties(inputSchema as Schema, false)
  const defs = (described.$defs ?? {}) as Record<string, Schema>
  const { $defs: _, ...root } = described
  const strictRoot = strictObject(root, 0)
  const strictDefs = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, strictNode(def, 1)]))
  return withinStrictBudgets(
    Object.keys(strictDefs).length > 0 ? { ...strictRoot, $defs: strictDefs } : strictRoot,
  )
}

/**
 * OpenAI's structured-outputs size limits (research/protocols.md §5): at most 1,000 enum values in
 * the whole schema, a string enum of over 250 values at most 15,000 characters, and at most
 * 120,000 characters of property names, definition names, enum and const values. Over them,
 * the largest enums become plain values whose description names the choices (the executor still
 * checks each value against the spec's enum), largest first, until the schema fits.
 */
const STRICT_ENUM_VALUES = 1_000
const STRICT_LONG_ENUM = { values: 250, characters: 15_000 }
const STRICT_CHARACTERS = 120_000

function withinStrictBudgets(input: Schema): Schema {
  const schema = withinStrictProperties(input)
  const measure = (root: Schema) => {
    const enums: Schema[] = []
    let values = 0
    let characters = Object.keys(isRecord(root.$defs) ? root.$defs : {}).join('').length
    visitSchemas(root, (node) => {
      if (isRecord(node.properties)) characters += Object.keys(node.properties).join('').length
      if (typeof node.const === 'string') characters += node.const.length
      if (!Array.isArray(node.enum)) return
      enums.push(node)
      values += node.enum.length
      characters += enumCharacters(node.enum)
    })
    return { enums, values, characters }
  }
  const first = measure(schema)
  const tooLong = (node: Schema) => {
    const list = node.enum as unknown[]
    return list.length > STRICT_LONG_ENUM.values && enumCharacters(list) > STRICT_LONG_ENUM.characters
  }
  if (
    first.values <= STRICT_ENUM_VALUES &&
    first.characters <= STRICT_CHARACTERS &&
    !first.enums.some(tooLong)
  )
    return schema
  // Rare (a few tools in thousands): the copy keeps the shared input untouched.
  const copy = structuredClone(schema)
  const { enums, characters } = measure(copy)
  let values = enums.reduce((sum, node) => sum + (node.enum as unknown[]).length, 0)
  let left = characters
  for (const node of enums.sort((a, b) => (b.enum as unknown[]).length - (a.enum as unknown[]).length)) {
    if (values <= STRICT_ENUM_VALUES && left <= STRICT_CHARACTERS && !tooLong(node)) continue
    const list = node.enum as unknown[]
    values -= list.length
    left -= enumCharacters(list)
    delete node.enum
    const note = `One of ${list.length} values (strict mode cannot list them all): ${listValues(list)}.`
    node.description = typeof node.description === 'string' ? `${sentence(node.description)} ${note}` : note
  }
  return copy
}

/** OpenAI structured outputs: at most 5,000 object properties in one schema. */
const STRICT_PROPERTIES = 5_000

/** An object under the root: the properties its subtree declares, and how to put another schema in its place. */
interface Subtree {
  readonly node: Schema
  readonly count: number
  readonly replace: (schema: Schema) => void
}

function subtrees(root: Schema): { total: number; nodes: Subtree[] } {
  const nodes: Subtree[] = []
  const visit = (node: Schema, replace?: (schema: Schema) => void): number => {
    let count = isRecord(node.properties) ? Object.keys(node.properties).length : 0
    for (const key of ['properties', '$defs']) {
      const map = node[key]
      if (!isRecord(map)) continue
      for (const name of Object.keys(map)) {
        const child = map[name]
        if (isRecord(child))
          count += visit(child, (schema) => {
            map[name] = schema
          })
      }
    }
    if (isRecord(node.items))
      count += visit(node.items, (schema) => {
        node.items = schema
      })
    if (Array.isArray(node.anyOf)) {
      const branches = node.anyOf as unknown[]
      branches.forEach((branch, i) => {
        if (isRecord(branch))
          count += visit(branch, (schema) => {
            branches[i] = schema
          })
      })
    }
    if (replace && count > 0) nodes.push({ node, count, replace })
    return count
  }
  return { total: visit(root), nodes }
}

/**
 * Over 5,000 properties (Microsoft Graph's and Kubernetes' biggest bodies), objects become JSON
 * text, as nesting past 10 levels does: each time the smallest subtree that brings the schema
 * under the limit, else the largest, so as little structure as needed is lost.
 */
function withinStrictProperties(schema: Schema): Schema {
  if (subtrees(schema).total <= STRICT_PROPERTIES) return schema
  const copy = structuredClone(schema)
  for (;;) {
    const { total, nodes } = subtrees(copy)
    if (total <= STRICT_PROPERTIES || nodes.length === 0) return copy
    const excess = total - STRICT_PROPERTIES
    const enough = nodes.filter((subtree) => subtree.count >= excess)
    const chosen =
      enough.length > 0
        ? enough.reduce((a, b) => (b.count < a.count ? b : a))
        : nodes.reduce((a, b) => (b.count > a.count ? b : a))
    const text = asJsonString(chosen.node, 'more properties than strict mode takes in one schema')
    // An optional object stays optional: null still leaves it out.
    chosen.replace(typesOf(chosen.node).includes('null') ? { ...text, type: ['string', 'null'] } : text)
  }
}

function enumCharacters(values: readonly unknown[]): number {
  let length = 0
  for (const value of values) if (typeof value === 'string') length += value.length
  return length
}

/** Every schema node of a strict schema: properties, items, anyOf branches and $defs. */
function visitSchemas(schema: Schema, visit: (node: Schema) => void): void {
  visit(schema)
  for (const key of ['properties', '$defs'])
    if (isRecord(schema[key]))
      for (const child of Object.values(schema[key] as Schema))
        if (isRecord(child)) visitSchemas(child, visit)
  if (isRecord(schema.items)) visitSchemas(schema.items, visit)
  if (Array.isArray(schema.anyOf))
    for (const branch of schema.anyOf) if (isRecord(branch)) visitSchemas(branch, visit)
}

/** `depth` counts container hops from the root (properties, items), as strict mode's nesting limit does. */
function strictNode(schema: Schema, depth: number): Schema {
  if (typeof schema.$ref === 'string') {
    return { $ref: schema.$ref, ...(schema.description ? { description: schema.description } : {}) }
  }
  const types = typesOf(schema)
  const cleaned = dropInapplicable(dropUnsupported(schema), types)
  const container =
    types.includes('object') || types.includes('array') || cleaned.oneOf || cleaned.anyOf || cleaned.allOf
  if (container && depth > STRICT_MAX_DEPTH)
    return asJsonString(schema, 'nested deeper than strict mode allows')
  if (Array.isArray(cleaned.oneOf) || Array.isArray(cleaned.anyOf)) {
    const { oneOf, anyOf, type: _, ...rest } = cleaned
    // Alternatives beside other structure (properties, allOf) are more than anyOf can say.
    if (Object.keys(rest).some((key) => key !== 'description' && key !== 'title')) {
      return asJsonString(schema, 'alternatives combined with other structure')
    }
    return { ...rest, anyOf: ((oneOf ?? anyOf) as Schema[]).map((branch) => strictNode(branch, depth)) }
  }
  if (cleaned.allOf || cleaned.prefixItems)
    return asJsonString(schema, 'a combination strict mode cannot describe')
  if (types.length === 0 || isAnyValueSchema(cleaned)) return asJsonString(schema, 'any JSON value')
  if (types.includes('object')) {
    if (!isRecord(cleaned.properties) || Object.keys(cleaned.properties).length === 0) {
      return asJsonString(schema, 'a free-form object')
    }
    return strictObject(cleaned, depth)
  }
  if (types.includes('array')) {
    if (!isRecord(cleaned.items)) return asJsonString(schema, 'a list of any values')
    return { ...cleaned, items: strictNode(cleaned.items as Schema, depth + 1) }
  }
  return cleaned
}

function strictObject(schema: Schema, depth: number): Schema {
  const properties = (schema.properties ?? {}) as Record<string, Schema>
  const required = new Set((schema.required as string[] | undefined) ?? [])
  const strictProperties = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const strict = strictNode(property, depth + 1)
      return [name, required.has(name) ? strict : optional(strict)]
    }),
  )
  const { required: __, additionalProperties: ___, ...rest } = dropUnsupported(schema)
  return {
    ...rest,
    type: 'object',
    properties: strictProperties,
    required: Object.keys(properties),
    additionalProperties: false,
  }
}

/** An optional property in strict mode: nullable, and its description says null means "leave out". */
function optional(schema: Schema): Schema {
  const note = 'Optional: null leaves it out.'
  const description = schema.description ? `${sentence(String(schema.description))} ${note}` : note
  if (Array.isArray(schema.anyOf))
    return { ...schema, description, anyOf: [...(schema.anyOf as Schema[]), { type: 'null' }] }
  if (typeof schema.$ref === 'string')
    return { anyOf: [{ $ref: schema.$ref }, { type: 'null' }], description }
  const types = typesOf(schema)
  const nullable: Schema = {
    ...schema,
    description,
    type: types.includes('null') ? types : [...types, 'null'],
  }
  // A nullable enum must list null itself, or null fails the enum.
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) nullable.enum = [...schema.enum, null]
  return nullable
}

function asJsonString(schema: Schema, why: string): Schema {
  const own = typeof schema.description === 'string' ? `${sentence(schema.description)} ` : ''
  return { type: 'string', description: `${own}JSON text of ${shape(schema)} (${why}).` }
}

function dropUnsupported(schema: Schema): Schema {
  const out: Schema = {}
  const hints: string[] = []
  for (const [key, value] of Object.entries(schema)) {
    if (STRICT_DROPPED.has(key)) continue
    if (key === 'format' && !STRICT_FORMATS.has(String(value))) hints.push(`Format: ${String(value)}.`)
    else setOwn(out, key, value)
  }
  if (schema.default !== undefined && !String(schema.description ?? '').includes('Default:'))
    hints.push(`Default: ${JSON.stringify(schema.default)}.`)
  if (hints.length > 0)
    out.description = [schema.description ? sentence(String(schema.description)) : '', ...hints]
      .filter(Boolean)
      .join(' ')
  return out
}

/** Keywords that constrain only objects, and only arrays. */
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties'] as const
const ARRAY_KEYWORDS = ['items', 'minItems', 'maxItems', 'prefixItems'] as const

/**
 * Object keywords on a schema that is no object, array keywords on one that is no array: JSON
 * Schema ignores them, but strict mode reads `properties` under `type: "array"` as an object it
 * must close (a spec's array body that also lists its item's fields, FormAPI).
 */
function dropInapplicable(schema: Schema, types: readonly string[]): Schema {
  if (types.length === 0) return schema
  const keys = [
    ...(types.includes('object') ? [] : OBJECT_KEYWORDS),
    ...(types.includes('array') ? [] : ARRAY_KEYWORDS),
  ].filter((key) => key in schema)
  if (keys.length === 0) return schema
  const out = { ...schema }
  for (const key of keys) delete out[key]
  return out
}

/** The catalog writes every type out (infer-type.ts); a renderer only reads it. */
function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type)) return schema.type as string[]
  return []
}
