import { upgrade } from '@scalar/openapi-parser'
import { setOwn } from '../util/own.js'
import type { ProblemSink } from './problems.js'

/**
 * Converts Swagger 2.0 and OpenAPI 3.0 to OpenAPI 3.1, so that the rest of the catalog reads one
 * dialect: `in: body`/`formData` become request bodies, `nullable` becomes a type union,
 * `definitions` become `components.schemas`. OpenAPI 3.0 goes through `upgradeFrom30` below (one
 * pass, the same result as Scalar's upgrader: GitHub's 13 MB description took 340 ms of CPU
 * through Scalar, 80 ms in place); Swagger 2.0 through Scalar's upgrader. The document
 * passed in is not changed, unless `owned`: a tree (JSON.parse's, no YAML aliases) that nothing
 * else holds, which an OpenAPI 3.0 upgrade then changes in place.
 */
export function upgradeToOpenApi31(
  document: Record<string, unknown>,
  sink: ProblemSink,
  { owned = false }: { readonly owned?: boolean } = {},
): Record<string, unknown> | undefined {
  if (typeof document.openapi === 'string' && document.openapi.startsWith('3.1')) return document
  try {
    if (isOpenApi30(document)) return upgradeFrom30(document, { inPlace: owned })
    return upgradeWithScalar(document)
  } catch (err) {
    sink.error(
      'source-upgrade-failed',
      '',
      `cannot convert the document to OpenAPI 3.1: ${(err as Error).message}`,
    )
    return undefined
  }
}

/** What Scalar's upgrader takes through its 3.0 → 3.1 step alone (a `swagger: 2.0` member sends it through 2.0 → 3.0 first). */
function isOpenApi30(document: Record<string, unknown>): boolean {
  const swagger = document.swagger
  return (
    typeof document.openapi === 'string' &&
    document.openapi.startsWith('3.0') &&
    !(typeof swagger === 'string' && swagger.startsWith('2.0'))
  )
}

/** Scalar's upgrader on a copy; exported for the test that holds `upgradeFrom30` to the same result. */
export function upgradeWithScalar(document: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(document)
  // The upgrader copies objects by assignment, which drops a `__proto__` key (a property or
  // schema of that name): such keys travel through it under another name and come back.
  const escaped = renameKeys(copy, escapeProtoKey)
  const { specification } = upgrade(copy)
  if (escaped) renameKeys(specification, unescapeProtoKey)
  return specification as Record<string, unknown>
}

const ESCAPE = '__toolgate_escaped_'
const ESCAPABLE = new RegExp(`^(${ESCAPE})*__proto__$`)

/** `__proto__` → `__toolgate_escaped___proto__`, and so on for names already escaped: a bijection. */
function escapeProtoKey(key: string): string | undefined {
  return ESCAPABLE.test(key) ? `${ESCAPE}${key}` : undefined
}

function unescapeProtoKey(key: string): string | undefined {
  return key.startsWith(ESCAPE) && ESCAPABLE.test(key) ? key.slice(ESCAPE.length) : undefined
}

/** Renames object keys in place, everywhere, keeping their order; true when any was renamed. Iterative: no depth limit. */
function renameKeys(root: unknown, rename: (key: string) => string | undefined): boolean {
  let renamed = false
  const pending: unknown[] = [root]
  const seen = new Set<object>()
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object' || seen.has(node)) continue
    seen.add(node)
    const record = node as Record<string, unknown>
    const entries = Object.entries(record)
    if (!Array.isArray(node) && entries.some(([key]) => rename(key) !== undefined)) {
      renamed = true
      for (const [key] of entries) delete record[key]
      for (const [key, value] of entries) setOwn(record, rename(key) ?? key, value)
    }
    for (const [, value] of entries) pending.push(value)
  }
  return renamed
}

type Json = Record<string, unknown>

/**
 * Where an object stands, as Scalar's 3.0 → 3.1 step reads its path (the keys and array indexes
 * from the root): kept as facts about the path instead of the path itself.
 */
interface Place {
  /** The path's length. */
  readonly depth: number
  /** Its last segment ('' at the root). */
  readonly last: string
  /** Its first segment ('' at the root). */
  readonly first: string
  /** `components`, `schemas` at the start, a schema keyword on the way, or a `…Schema` segment. */
  readonly schema: boolean
  /** Under an `examples` segment that is neither the first nor a property's name: a map of examples. */
  readonly examples: boolean
  /** `content` directly followed by `multipart/form-data` somewhere on the path. */
  readonly multipart: boolean
  /** A `content` segment somewhere, and an `application/octet-stream` segment somewhere. */
  readonly content: boolean
  readonly octetStream: boolean
  /** Where the first `content` segment is (-1: none), and the segment after it. */
  readonly contentAt: number
  readonly afterContent: string | undefined
}

const ROOT: Place = {
  depth: 0,
  last: '',
  first: '',
  schema: false,
  examples: false,
  multipart: false,
  content: false,
  octetStream: false,
  contentAt: -1,
  afterContent: undefined,
}

const SCHEMA_SEGMENTS = new Set([
  'properties',
  'items',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'additionalProperties',
  'schema',
])

function enter(place: Place, segment: string): Place {
  const depth = place.depth + 1
  return {
    depth,
    last: segment,
    first: depth === 1 ? segment : place.first,
    schema:
      place.schema ||
      SCHEMA_SEGMENTS.has(segment) ||
      segment.endsWith('Schema') ||
      (depth === 2 && place.first === 'components' && segment === 'schemas'),
    examples: place.examples || (segment === 'examples' && place.depth > 0 && place.last !== 'properties'),
    multipart:
      place.multipart || (place.last === 'content' && place.depth > 0 && segment === 'multipart/form-data'),
    content: place.content || segment === 'content',
    octetStream: place.octetStream || segment === 'application/octet-stream',
    contentAt: place.contentAt >= 0 || segment !== 'content' ? place.contentAt : place.depth,
    afterContent:
      place.contentAt >= 0 && place.contentAt === depth - 2 && place.afterContent === undefined
        ? segment
        : place.afterContent,
  }
}

/**
 * Scalar's 3.0 → 3.1 step (@scalar/openapi-upgrader 0.1.x `upgradeFromThreeToThreeOne`), to the
 * byte: the same changes at each object after its members, bottom-up, the same key order, and by
 * default the same copy (objects copied, and objects that are array items; an array inside an
 * array is taken as it is by Scalar, copied as plain JSON here). `inPlace`: the document is
 * changed where it lies instead of copied (no second 13 MB tree for the garbage collector) — only
 * for a tree its caller owns, as JSON.parse makes: a node met twice (a YAML alias) would be
 * changed twice.
 */
export function upgradeFrom30(
  document: Json,
  { inPlace = false }: { readonly inPlace?: boolean } = {},
): Json {
  return upgradeObject(document, ROOT, inPlace)
}

/** Members without which Scalar's changes leave an object as it is (but under octet-stream content). */
const CHANGED_BY = new Set([
  'nullable',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'example',
  'properties',
  'format',
  'x-webhooks',
])

function upgradeObject(source: Json, place: Place, inPlace: boolean): Json {
  // Every object under octet-stream content becomes {}, its members' changes unseen.
  if (place.content && place.octetStream) return {}
  const out: Json = inPlace ? source : {}
  let changes = false
  // An indexed loop: this walk runs once per document, cold, where a for…of allocates per step.
  const keys = Object.keys(source)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const value = source[key]
    let upgraded: unknown = value
    if (Array.isArray(value)) upgraded = upgradeArray(value, enter(place, key), inPlace)
    else if (typeof value === 'object' && value !== null)
      upgraded = upgradeObject(value as Json, enter(place, key), inPlace)
    if (place.depth === 0 && key === 'openapi') upgraded = '3.1.1'
    if (!inPlace || upgraded !== value) setOwn(out, key, upgraded)
    if (!changes) changes = CHANGED_BY.has(key)
  }
  return changes ? change(out, place) : out
}

function upgradeArray(source: unknown[], place: Place, inPlace: boolean): unknown[] {
  const upgradeItem = (item: unknown, index: number): unknown => {
    if (typeof item !== 'object' || item === null) return item
    if (Array.isArray(item)) return inPlace ? item : structuredClone(item)
    return upgradeObject(item as Json, enter(place, String(index)), inPlace)
  }
  if (!inPlace) return source.map(upgradeItem)
  for (let index = 0; index < source.length; index++) {
    const item = source[index]
    const upgraded = upgradeItem(item, index)
    if (upgraded !== item) source[index] = upgraded
  }
  return source
}

/** `applyChangesToDocument` of Scalar's step, on one object after its members (upgradeObject has returned {} under octet-stream content). */
function change(schema: Json, place: Place): Json {
  if (schema.type !== undefined && schema.nullable === true) {
    schema.type = [schema.type, 'null']
    delete schema.nullable
  }
  if (schema.exclusiveMinimum === true) {
    schema.exclusiveMinimum = schema.minimum
    delete schema.minimum
  } else if (schema.exclusiveMinimum === false) {
    delete schema.exclusiveMinimum
  }
  if (schema.exclusiveMaximum === true) {
    schema.exclusiveMaximum = schema.maximum
    delete schema.maximum
  } else if (schema.exclusiveMaximum === false) {
    delete schema.exclusiveMaximum
  }
  if (schema.example !== undefined && !place.examples) {
    schema.examples = place.schema ? [schema.example] : { default: { value: schema.example } }
    delete schema.example
  }
  if (
    schema.type === 'object' &&
    schema.properties !== undefined &&
    place.multipart &&
    schema.properties !== null
  ) {
    for (const value of Object.values(schema.properties as Json)) {
      if (typeof value !== 'object' || value === null || !('type' in value) || !('format' in value)) continue
      const property = value as Json
      if (property.type === 'string' && property.format === 'binary') {
        property.contentMediaType = 'application/octet-stream'
        delete property.format
      }
    }
  }
  if (schema.type === 'string') {
    const format = schema.format
    if (format === 'binary' || format === 'base64' || format === 'byte') {
      const { format: _, ...rest } = schema
      if (format === 'binary')
        return { ...rest, type: 'string', contentMediaType: 'application/octet-stream' }
      if (format === 'base64') return { ...rest, type: 'string', contentEncoding: 'base64' }
      const contentMediaType =
        place.contentAt >= 0 && place.contentAt + 1 <= place.depth - 2 ? place.afterContent : undefined
      return { ...rest, type: 'string', contentEncoding: 'base64', contentMediaType }
    }
  }
  if (schema['x-webhooks'] !== undefined) {
    schema.webhooks = schema['x-webhooks']
    delete schema['x-webhooks']
  }
  return schema
}
