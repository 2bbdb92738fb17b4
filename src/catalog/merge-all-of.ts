import { isRecord } from '../util/is-record.js'
import { setOwn } from '../util/own.js'
import { isAnyValueSchema } from './infer-type.js'
import type { JsonSchema } from './types.js'

/** A local reference (`#/$defs/Node`) to its schema; undefined when it cannot (or must not) be opened. */
export type ResolveRef = (ref: string) => JsonSchema | undefined

export interface MergedAllOf {
  readonly schema: JsonSchema
  /** Members that each close themselves were merged: the literal schema took no object at all. */
  readonly closedConflict: boolean
}

type Schema = Record<string, unknown>

/** Conflicting property schemas nest their own allOf; past this depth they stay unmerged. */
const MAX_NESTING = 16

/** Said about the value, not constraining it: the first one (the schema's own, then the members') wins. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'contentEncoding',
  'contentMediaType',
])
const LOWER_BOUNDS = new Set([
  'minimum',
  'exclusiveMinimum',
  'minLength',
  'minItems',
  'minProperties',
  'minContains',
])
const UPPER_BOUNDS = new Set([
  'maximum',
  'exclusiveMaximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'maxContains',
])
/** Keywords merged by their own rule below; every other keyword merges only when the members agree. */
const HANDLED = new Set(['type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items'])

/** A merge that cannot say what the members mean together: the allOf stays. */
class Conflict extends Error {}

/**
 * `allOf` merged into the schema beside it — the intersection the members describe, written as one
 * schema: properties and required names united (a property two members define differently becomes
 * the allOf of both, merged in turn), types intersected, bounds tightened, enums intersected, the
 * first annotation kept. Members that are `$ref`s are opened with `resolve`; nested allOf members
 * are flattened. Returns undefined when members conflict in a way one schema cannot say (two
 * different patterns, two unions, disjoint types) or a reference cannot be opened: the caller
 * keeps the allOf.
 *
 * As elsewhere in the catalog, members that each close themselves (`additionalProperties: false`)
 * are read by intent — one object with all their properties — not literally (no object at all).
 */
export function mergeAllOf(schema: JsonSchema, resolve: ResolveRef): MergedAllOf | undefined {
  try {
    let closedConflict = false
    const merged = mergeNode(schema, resolve, 0, () => {
      closedConflict = true
    })
    return { schema: merged, closedConflict }
  } catch (error) {
    if (error instanceof Conflict) return undefined
    throw error
  }
}

function mergeNode(schema: JsonSchema, resolve: ResolveRef, depth: number, onClosed: () => void): Schema {
  if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) return schema as Schema
  if (depth > MAX_NESTING) throw new Conflict()
  const { allOf: _, ...own } = schema
  const parts = [own, ...flattenMembers(schema.allOf, resolve, new Set(), 0)]
  const out: Schema = {}
  for (const part of parts) mergeKeywords(out, part)
  out.type = mergedType(parts)
  if (out.type === undefined) delete out.type
  const properties = mergeProperties(parts, resolve, depth, onClosed)
  if (properties) out.properties = properties
  const required = [...new Set(parts.flatMap((part) => (part.required as string[] | undefined) ?? []))]
  const union = out.oneOf !== undefined || out.anyOf !== undefined
  const kept = properties && !union ? required.filter((name) => Object.hasOwn(properties, name)) : required
  if (kept.length > 0) out.required = kept
  const closed = mergeAdditionalProperties(parts, onClosed)
  if (closed !== undefined) out.additionalProperties = closed
  mergeValues(out, parts)
  const items = mergeSchemas(
    parts.filter((part) => part.items !== undefined).map((part) => part.items),
    resolve,
    depth,
    onClosed,
  )
  if (items !== undefined) out.items = items
  return out
}

/** Members in order, `$ref`s opened, a member's own allOf flattened into the list. */
function flattenMembers(
  members: unknown[],
  resolve: ResolveRef,
  opening: Set<string>,
  depth: number,
): Schema[] {
  if (depth > MAX_NESTING) throw new Conflict()
  const out: Schema[] = []
  for (const member of members) {
    if (member === true) continue
    if (!isRecord(member)) throw new Conflict()
    const part: Schema = member
    if (typeof member.$ref === 'string') {
      const { $ref, ...siblings } = member
      // A member that refers back to a definition being opened is a cycle: it cannot be written out.
      const target = opening.has($ref) ? undefined : resolve($ref)
      if (!target) throw new Conflict()
      opening.add($ref)
      out.push(...flattenMembers([{ ...target, ...siblings }], resolve, opening, depth + 1))
      opening.delete($ref)
      continue
    }
    if (Array.isArray(part.allOf)) {
      const { allOf, ...rest } = part
      out.push(rest, ...flattenMembers(allOf, resolve, opening, depth + 1))
      continue
    }
    out.push(isAnyValueSchema(part) ? withoutAnyValue(part) : part)
  }
  return out
}

/** The any-value form constrains nothing: merged, only its annotations count. */
function withoutAnyValue(part: Schema): Schema {
  const { type: _, items, ...rest } = part
  return isRecord(items) && Object.keys(items).length === 0 ? rest : { ...rest, items }
}

/** Annotations: first wins. Bounds: the tightest. Anything else: all members that set it must agree. */
function mergeKeywords(out: Schema, part: Schema): void {
  for (const [key, value] of Object.entries(part)) {
    if (HANDLED.has(key)) continue
    if (!Object.hasOwn(out, key)) setOwn(out, key, value)
    else if (ANNOTATIONS.has(key)) continue
    else if (LOWER_BOUNDS.has(key) && typeof value === 'number')
      out[key] = Math.max(out[key] as number, value)
    else if (UPPER_BOUNDS.has(key) && typeof value === 'number')
      out[key] = Math.min(out[key] as number, value)
    else if (key === 'uniqueItems') out[key] = out[key] === true || value === true
    else if (!sameJson(out[key], value)) throw new Conflict()
  }
}

/** The intersection of the members' types (written or implied); disjoint types cannot be merged. */
function mergedType(parts: Schema[]): string | string[] | undefined {
  let types: Set<string> | undefined
  for (const part of parts) {
    // Declared types only: inferring one here would narrow what the allOf means (the catalog infers
    // types after merging, where the spec author's intent is the rule).
    const type = part.type
    if (type === undefined) continue
    const own = new Set(Array.isArray(type) ? type.map(String) : [String(type)])
    if (!types) {
      types = own
      continue
    }
    const both = new Set<string>()
    for (const t of types) {
      if (own.has(t)) both.add(t)
      else if ((t === 'integer' && own.has('number')) || (t === 'number' && own.has('integer')))
        both.add('integer')
    }
    types = both
  }
  if (!types) return undefined
  if (types.size === 0) throw new Conflict()
  const list = [...types]
  return list.length === 1 ? list[0] : list
}

function mergeProperties(
  parts: Schema[],
  resolve: ResolveRef,
  depth: number,
  onClosed: () => void,
): Record<string, unknown> | undefined {
  const withProperties = parts.filter((part) => isRecord(part.properties))
  if (withProperties.length === 0) return undefined
  const byName = new Map<string, unknown[]>()
  for (const part of withProperties) {
    for (const [name, value] of Object.entries(part.properties as Schema)) {
      const list = byName.get(name)
      if (list) list.push(value)
      else byName.set(name, [value])
    }
  }
  const properties: Record<string, unknown> = {}
  for (const [name, schemas] of byName)
    setOwn(properties, name, mergeSchemas(schemas, resolve, depth, onClosed))
  return properties
}

/**
 * Several schemas for one place (a property, the items): one when they agree; else their allOf,
 * merged when it can be, kept as an allOf (with the type its members share) when it cannot.
 */
function mergeSchemas(schemas: unknown[], resolve: ResolveRef, depth: number, onClosed: () => void): unknown {
  const distinct = schemas.filter((schema, i) => schemas.findIndex((other) => sameJson(other, schema)) === i)
  if (distinct.length <= 1) return distinct[0]
  const combined = { allOf: distinct }
  try {
    return mergeNode(combined, resolve, depth + 1, onClosed)
  } catch (error) {
    if (!(error instanceof Conflict)) throw error
    const type = sharedType(distinct)
    return type === undefined ? combined : { type, ...combined }
  }
}

/** The type the schemas declare together, if any (undefined for none or for disjoint ones). */
function sharedType(schemas: unknown[]): string | string[] | undefined {
  try {
    return mergedType(schemas.filter(isRecord))
  } catch {
    return undefined
  }
}

/**
 * `false` when the schema itself or every member with properties closes itself; said (onClosed)
 * whenever a closed part leaves out properties another part declares, since the literal allOf
 * then rejects them. A schema-valued `additionalProperties` only when the parts agree on it.
 */
function mergeAdditionalProperties(parts: Schema[], onClosed: () => void): unknown {
  const closed = parts.filter((part) => part.additionalProperties === false)
  if (closed.length > 0) {
    const names = new Set(
      parts.flatMap((part) => Object.keys(isRecord(part.properties) ? part.properties : {})),
    )
    const leavesOut = (part: Schema) =>
      [...names].some((name) => !isRecord(part.properties) || !Object.hasOwn(part.properties, name))
    if (closed.some(leavesOut)) onClosed()
    const contributors = parts.filter((part) => isRecord(part.properties))
    const allClosed = contributors.every((part) => part.additionalProperties === false)
    return parts[0]!.additionalProperties === false || allClosed ? false : undefined
  }
  const open = parts
    .map((part) => part.additionalProperties)
    .filter(
      (value) =>
        value !== undefined && value !== true && !(isRecord(value) && Object.keys(value).length === 0),
    )
  if (open.length === 0) return undefined
  if (open.some((value) => !sameJson(value, open[0]))) throw new Conflict()
  return open[0]
}

/** `enum`s intersect (an empty intersection cannot be merged); `const` must agree with them. */
function mergeValues(out: Schema, parts: Schema[]): void {
  let values: unknown[] | undefined
  for (const part of parts) {
    const own = part.const !== undefined ? [part.const] : Array.isArray(part.enum) ? part.enum : undefined
    if (!own) continue
    values = values ? values.filter((value) => own.some((other) => sameJson(value, other))) : own
  }
  if (!values) return
  if (values.length === 0) throw new Conflict()
  if (parts.some((part) => part.const !== undefined)) out.const = values[0]
  else out.enum = values
}

/** Deep equality of JSON values, key order ignored. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    return a.length === other.length && a.every((value, i) => sameJson(value, other[i]))
  }
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every((key) => Object.hasOwn(b, key) && sameJson((a as Schema)[key], (b as Schema)[key]))
}
