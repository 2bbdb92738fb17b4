import { shortHash } from '../util/hash.js'
import { isRecord } from '../util/is-record.js'
import { childPointer, resolvePointer, unescapePointerToken } from '../util/json-pointer.js'
import { setOwn } from '../util/own.js'
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from '../util/schema-keywords.js'
import { anyValueSchema, typedOrAnyValue, withInferredType } from './infer-type.js'
import { linearPattern } from './linear-pattern.js'
import { mergeAllOf } from './merge-all-of.js'
import { isOutputKeyword, loosenOutputSchema, outputPropertySchema } from './output-schema.js'
import type { ProblemSink } from './problems.js'
import { createRecursionDetector, normalizeRef } from './ref-graph.js'
import { repairKeywords } from './repair-keywords.js'
import type { NormalizedSchema, SchemaContext, SchemaWalker } from './schema-context.js'
import type { JsonSchema } from './types.js'

/** Which side a schema describes: what the caller sends, or what the upstream answers. */
type Side = 'request' | 'response'

/** Keywords that are OpenAPI-only or meaningless once the schema stands alone: left out. */
const DROPPED = new Set([
  'discriminator',
  'xml',
  'externalDocs',
  '$schema',
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$comment',
  '$defs',
  'definitions',
  'nullable',
  'additionalItems',
])
const MAP_KEYWORDS = new Set<string>(SCHEMA_MAP_KEYWORDS)
const LIST_KEYWORDS = new Set<string>(SCHEMA_LIST_KEYWORDS)
// `items` is walked apart: its draft-4 tuple form becomes prefixItems.
const SINGLE_KEYWORDS = new Set<string>(SCHEMA_KEYWORDS.filter((keyword) => keyword !== 'items'))

/**
 * What a subschema applying to the same instance as its parent (an allOf/anyOf/oneOf member,
 * then/else, a dependentSchemas value) knows from it: the property names the parent declares,
 * which its `required` may name (`oneOf: [{ required: [a] }, { required: [b] }]`). Under `not`
 * and `if` a `required` is a condition, not an obligation: it is never repaired there.
 */
interface Scope {
  readonly inherited?: ReadonlySet<string>
  readonly condition?: boolean
}
const NO_SCOPE: Scope = {}
const NO_NAMES: ReadonlySet<string> = new Set()
/** Keywords whose schemas apply to the instance itself, each member with its siblings' names for allOf. */
const SAME_INSTANCE = new Set(['allOf', 'anyOf', 'oneOf', 'then', 'else', 'dependentSchemas'])

/** Deeper than any real schema; past it a document is hostile or broken, and recursion would overflow. */
const MAX_DEPTH = 128

/** Keywords that may stand beside a `$ref` and are kept there (OpenAPI 3.1 allows siblings). */
const REF_SIBLINGS = new Set([
  'description',
  'title',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
])

export function createSchemaContext(document: unknown, sink: ProblemSink): SchemaContext {
  const isRecursive = createRecursionDetector(document)

  /**
   * `A: {$ref: B}`, `B: {$ref: A}`: a loop of bare references that never reaches a schema. Ajv
   * cannot compile it, and the executor would then serve the tool unvalidated. Every key on a
   * chain is remembered, so long chains are followed once.
   */
  const refCycles = new Map<string, boolean>()
  const leadsIntoRefCycle = (start: string): boolean => {
    const chain: string[] = []
    const onChain = new Set<string>()
    let key = start
    let cyclic = false
    while (!refCycles.has(key)) {
      if (onChain.has(key)) {
        cyclic = true
        break
      }
      chain.push(key)
      onChain.add(key)
      const target = resolvePointer(document, key)
      if (!isRecord(target) || typeof target.$ref !== 'string' || !target.$ref.startsWith('#')) break
      key = normalizeRef(target.$ref)
    }
    const answer = cyclic || (refCycles.get(key) ?? false)
    for (const member of chain) refCycles.set(member, answer)
    return answer
  }

  // Both sides walk the same components; a repair they both meet is reported once.
  const reported = new Set<string>()
  const onceSink: ProblemSink = {
    ...sink,
    report: (severity, code, pointer, message) => {
      const key = `${severity}\u0000${code}\u0000${pointer}\u0000${message}`
      if (reported.has(key)) return
      reported.add(key)
      sink.report(severity, code, pointer, message)
    },
    warn: (code, pointer, message) => onceSink.report('warning', code, pointer, message),
    error: (code, pointer, message) => onceSink.report('error', code, pointer, message),
  }
  const shared: WalkerShared = { document, sink: onceSink, isRecursive, leadsIntoRefCycle }
  const request = createWalker(shared, 'request')
  let response: SchemaWalker | undefined
  // A chain of references leads to the same place from every operation that follows it (GitHub's
  // 1,223 operations share a few dozen parameters): each resolved chain is followed once.
  const resolvedRefs = new Map<string, { value: unknown; pointer: string }>()
  const resolveObject = (node: unknown, pointer: string) => {
    if (!isRecord(node) || typeof node.$ref !== 'string') return { value: node, pointer }
    const start = node.$ref
    const known = resolvedRefs.get(start)
    if (known) return known
    let value: unknown = node
    let at = pointer
    const seen = new Set<string>()
    while (isRecord(value) && typeof value.$ref === 'string') {
      const ref = value.$ref
      if (seen.has(ref) || !ref.startsWith('#')) break
      seen.add(ref)
      const target = resolvePointer(document, ref)
      if (target === undefined) break
      value = target
      at = normalizeRef(ref).slice(1)
    }
    if (isRecord(value) && typeof value.$ref === 'string') {
      sink.warn('ref-dangling', pointer, `$ref ${value.$ref} cannot be resolved; the object is left out`)
      return undefined
    }
    const resolved = { value, pointer: at }
    resolvedRefs.set(start, resolved)
    return resolved
  }

  const followRefs = (node: unknown): unknown => {
    let value = node
    for (let hops = 0; isRecord(value) && typeof value.$ref === 'string'; hops++) {
      if (hops > 64 || !value.$ref.startsWith('#')) return undefined
      value = resolvePointer(document, value.$ref)
    }
    return value
  }

  return {
    normalize: request.normalize,
    defsFor: request.defsFor,
    followRefs,
    get output() {
      response ??= createWalker(shared, 'response')
      return response
    },
    resolveObject,
  }
}

interface WalkerShared {
  readonly document: unknown
  readonly sink: ProblemSink
  readonly isRecursive: (ref: string) => boolean
  readonly leadsIntoRefCycle: (key: string) => boolean
}

/**
 * One side's walk, with its own caches: a component inlined in a request schema and in a response
 * schema differs (read-only properties, the lenient keywords), so each side normalizes it once.
 */
function createWalker(
  { document, sink, isRecursive, leadsIntoRefCycle }: WalkerShared,
  side: Side,
): SchemaWalker {
  const inlined = new Map<string, NormalizedSchema>()
  const definitions = new Map<string, NormalizedSchema>()
  /** `$defs` name → the pointer it was made from, so an allOf member `$ref` can be opened for merging. */
  const defKeys = new Map<string, string>()
  /** Definitions being normalized: one of them met again inside its own allOf is a cycle, left unmerged. */
  const building = new Set<string>()
  /** A schema where a value stands, typed (infer-type.ts); the lenient response side keeps its own rules. */
  const inValuePosition = (schema: JsonSchema): JsonSchema =>
    side === 'request' ? typedOrAnyValue(schema) : schema
  let depth = 0
  const normalize = (node: unknown, pointer: string, scope: Scope = NO_SCOPE): NormalizedSchema => {
    const defs = new Set<string>()
    return { schema: walk(node, pointer, defs, scope), defs }
  }

  const walk = (node: unknown, pointer: string, defs: Set<string>, scope: Scope = NO_SCOPE): JsonSchema => {
    if (depth >= MAX_DEPTH) {
      sink.warn(
        'schema-too-deep',
        pointer,
        `schemas nest deeper than ${MAX_DEPTH} levels here; {} stands in below`,
      )
      return {}
    }
    depth++
    try {
      return walkNode(node, pointer, defs, scope)
    } finally {
      depth--
    }
  }

  const walkNode = (node: unknown, pointer: string, defs: Set<string>, scope: Scope): JsonSchema => {
    if (node === true) return {}
    // A response schema of `false` ("no answer is valid") is a lie the gateway cannot act on.
    if (node === false) return side === 'response' ? {} : { not: {} }
    if (!isRecord(node)) {
      sink.warn(
        'schema-invalid',
        pointer,
        `expected a schema object, got ${JSON.stringify(node)}; {} stands in`,
      )
      return {}
    }
    if (typeof node.$ref === 'string') return walkRef(node, node.$ref, pointer, defs, scope)
    return walkKeywords(node, pointer, defs, scope)
  }

  const walkRef = (
    node: Record<string, unknown>,
    ref: string,
    pointer: string,
    defs: Set<string>,
    scope: Scope,
  ): JsonSchema => {
    const siblings = refSiblings(node, side)
    repairKeywords(siblings, pointer, sink)
    const target = ref.startsWith('#') ? resolvePointer(document, ref) : undefined
    if (target === undefined) {
      sink.warn('ref-dangling', pointer, `$ref ${ref} points at nothing; an empty schema stands in`)
      return siblings
    }
    const key = normalizeRef(ref)
    if (leadsIntoRefCycle(key)) {
      sink.warn(
        'ref-cycle',
        pointer,
        `$ref ${ref} only leads to other $refs and back, never to a schema; an empty schema stands in`,
      )
      return siblings
    }
    if (isRecursive(key)) {
      defs.add(key) // its definition is built by defsFor, iteratively, not nested in this walk
      const name = defName(key)
      defKeys.set(name, key)
      return { ...siblings, $ref: `#/$defs/${name}` }
    }
    // A member normalized in a parent's scope may keep required names its parent declares (the
    // response side has no required: one normalization per component).
    const cacheKey = side === 'response' ? key : scopeKey(key, scope)
    let hit = inlined.get(cacheKey)
    if (!hit) {
      hit = normalize(target, key.slice(1), scope)
      inlined.set(cacheKey, hit)
    }
    for (const def of hit.defs) defs.add(def)
    return Object.keys(siblings).length === 0 ? hit.schema : { ...hit.schema, ...siblings }
  }

  const definitionOf = (key: string): NormalizedSchema => {
    let definition = definitions.get(key)
    if (!definition) {
      building.add(key)
      try {
        const normalized = normalize(resolvePointer(document, key), key.slice(1))
        // A definition stands where its references do: in a property position.
        definition = { schema: inValuePosition(normalized.schema), defs: normalized.defs }
      } finally {
        building.delete(key)
      }
      definitions.set(key, definition)
    }
    return definition
  }

  /** The type of a `#/$defs/…` definition (a union branch's), unless it is still being built. */
  const typeOfDefinition = (ref: string) => {
    const key = ref.startsWith('#/$defs/') ? defKeys.get(ref.slice('#/$defs/'.length)) : undefined
    if (key === undefined || building.has(key)) return undefined
    return definitionOf(key).schema.type as string | string[] | undefined
  }

  /** Opens a `#/$defs/…` reference for merging; undefined for a definition still being built (a cycle). */
  const openDefinition = (defs: Set<string>) => (ref: string) => {
    const key = ref.startsWith('#/$defs/') ? defKeys.get(ref.slice('#/$defs/'.length)) : undefined
    if (key === undefined || building.has(key)) return undefined
    const definition = definitionOf(key)
    for (const def of definition.defs) defs.add(def)
    return definition.schema
  }

  const walkKeywords = (
    node: Record<string, unknown>,
    pointer: string,
    defs: Set<string>,
    scope: Scope,
  ): JsonSchema => {
    const out: Record<string, unknown> = {}
    // Per schema node, only what a keyword needs is made: the read-only names when it has
    // properties, a member's pointer when a member is walked, a scope when it differs.
    let readOnly: Set<string> | undefined
    let own: Set<string> | undefined
    // Whether `out` may hold an allOf to merge. Read off the loop rather than off `out`: each new
    // shape of `out` met at that load threw walkKeywords' optimized code away.
    let allOf = false
    const memberScope = (key: string): Scope => {
      if (side === 'response') return NO_SCOPE
      if (key === 'not' || key === 'if') return { condition: true }
      if (!SAME_INSTANCE.has(key)) return NO_SCOPE
      own ??= new Set([...(scope.inherited ?? []), ...declaredNames(node, document)])
      return { inherited: own, ...(scope.condition ? { condition: true } : {}) }
    }
    const keys = Object.keys(node)
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      if (key.startsWith('x-') || DROPPED.has(key)) continue
      const value = node[key]
      if (side === 'response' && !isOutputKeyword(key, value)) continue
      if (key === 'allOf') allOf = true
      if (key === 'properties' && isRecord(value)) {
        const at = childPointer(pointer, key)
        readOnly ??= new Set<string>()
        out.properties = walkProperties(propertiesMap(value, at), at, defs, readOnly)
      } else if (key === 'items') Object.assign(out, walkItems(value, childPointer(pointer, key), defs))
      // Keyed stores through setOwn, one store site shared by every walk: here, each shape of `out`
      // not seen before threw walkKeywords' optimized code away.
      else if (MAP_KEYWORDS.has(key) && isRecord(value))
        setOwn(out, key, mapValues(value, childPointer(pointer, key), defs, memberScope(key)))
      else if (LIST_KEYWORDS.has(key) && Array.isArray(value)) {
        const at = childPointer(pointer, key)
        const inner = memberScope(key)
        const members = value.map((item, i) => {
          const schema = walk(item, childPointer(at, i), defs, inner)
          // Union branches and tuple items stand where a value does; allOf members only constrain.
          return key === 'allOf' ? schema : inValuePosition(schema)
        })
        setOwn(out, key, members)
      } else if (SINGLE_KEYWORDS.has(key))
        setOwn(
          out,
          key,
          typeof value === 'boolean'
            ? value
            : walk(value, childPointer(pointer, key), defs, memberScope(key)),
        )
      else if (key === 'example') out.examples ??= [value]
      else setOwn(out, key, value)
    }
    // The response side is lenient (output-schema.ts): no required, no closed objects to repair.
    if (side === 'response')
      return loosenOutputSchema(node, allOf ? mergeObjectAllOf(out, pointer, defs) : out)
    repairType(node, out)
    repairKeywords(out, pointer, sink)
    if (!scope.condition) repairRequired(out, pointer, readOnly ?? NO_NAMES, scope)
    // Branches are repaired against the root as written, before an allOf beside them merges into it.
    const repaired = repairClosedAlternatives(out, pointer)
    // Repairs may drop an allOf, never add one.
    const merged = allOf ? mergeObjectAllOf(repaired, pointer, defs) : repaired
    const inferred = withInferredType(merged, typeOfDefinition)
    // `out` is this call's own object; only a schema made elsewhere is copied before it is written to.
    const typed = inferred === out ? out : { ...inferred }
    repairArrayItems(typed, pointer)
    return typed
  }

  /**
   * An object whose properties live only in its oneOf/anyOf branches, written as if the root saw
   * them: `additionalProperties: false` at the root (which then forbids every branch property) and
   * `required` naming properties of different branches (which no single branch can meet). Each
   * required name moves into the branches that declare it; the root stops closing itself.
   */
  const repairClosedAlternatives = (
    schema: Record<string, unknown>,
    pointer: string,
  ): Record<string, unknown> => {
    const branches = (schema.oneOf ?? schema.anyOf) as Record<string, unknown>[] | undefined
    if (!Array.isArray(branches) || isRecord(schema.properties)) return schema
    const declared = branches.map((branch) => propertyNames(branch))
    if (declared.some((names) => names.size === 0)) return schema
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : []
    const declaredBy = (name: string) => declared.filter((names) => names.has(name)).length
    // Names every branch declares, or none does (they live in an allOf beside), stay at the root.
    const staying = required.filter((name) => declaredBy(name) === 0 || declaredBy(name) === branches.length)
    if (schema.additionalProperties !== false && staying.length === required.length) return schema
    sink.warn(
      'schema-closed-alternatives',
      pointer,
      'the root closes itself or requires properties that only its oneOf/anyOf branches declare; the required names move into those branches',
    )
    const key = schema.oneOf ? 'oneOf' : 'anyOf'
    // Only a closing `false` goes: a schema-valued additionalProperties declares the names that
    // stay required for it (issue 42 class 7), and is the spec's rule for the branches' others.
    const { required: __, ...rest } = schema
    if (rest.additionalProperties === false) delete rest.additionalProperties
    const moved = branches.map((branch, i) => {
      const own = required.filter((name) => !staying.includes(name) && declared[i]!.has(name))
      const names = [...new Set([...((branch.required as string[] | undefined) ?? []), ...own])]
      return names.length > 0 ? { ...branch, required: names } : branch
    })
    return { ...rest, ...(staying.length > 0 ? { required: staying } : {}), [key]: moved }
  }

  /**
   * `allOf` merged into one schema (merge-all-of.ts), its `$defs` members opened. Members that each
   * close themselves (`additionalProperties: false`) make the literal schema unsatisfiable; the
   * intent (one object with all their properties) is what is kept, and said. An allOf that cannot
   * be merged stays, with the type its members share (infer-type.ts).
   */
  const mergeObjectAllOf = (
    schema: Record<string, unknown>,
    pointer: string,
    defs: Set<string>,
  ): Record<string, unknown> => {
    if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) return schema
    const merged = mergeAllOf(schema, openDefinition(defs))
    if (!merged) return schema
    if (merged.closedConflict) {
      sink.warn(
        'schema-allof-closed',
        childPointer(pointer, 'allOf'),
        'allOf members close themselves with additionalProperties: false, so no object satisfies all of them; they are merged into one object',
      )
    }
    repairMergedBranches(merged.schema as Record<string, unknown>, pointer)
    return merged.schema as Record<string, unknown>
  }

  /**
   * A property that declared nothing kept its branches' `required` as presence rules when it was
   * walked; an allOf member that declares the same property merges names into it afterwards, and
   * those rules then name properties nothing declares (issue 42 class 7). The merged schema's
   * objects are checked again: a branch's required name that neither the object, its members nor
   * the branch declare, and no additionalProperties or patternProperties admits, is dropped.
   * An object or branch holding a reference is left as it is: what it declares is not read here.
   */
  const repairMergedBranches = (schema: Record<string, unknown>, pointer: string, depth = 0): void => {
    if (depth > 16) return
    for (const [name, property] of Object.entries(isRecord(schema.properties) ? schema.properties : {}))
      if (isRecord(property))
        repairMergedBranches(property, childPointer(childPointer(pointer, 'properties'), name), depth + 1)
    if (isRecord(schema.items)) repairMergedBranches(schema.items, childPointer(pointer, 'items'), depth + 1)
    const declared = localNames(schema)
    if (declared === undefined || declared.size === 0) return
    const admitted = admittedBy(schema)
    for (const key of ['oneOf', 'anyOf'] as const) {
      const branches = schema[key]
      if (!Array.isArray(branches)) continue
      branches.forEach((branch, i) => {
        if (!isRecord(branch) || !Array.isArray(branch.required)) return
        const own = localNames(branch)
        if (own === undefined) return
        const names = branch.required as string[]
        const kept = names.filter(
          (n) => declared.has(n) || own.has(n) || admitted(n) || admittedBy(branch)(n),
        )
        if (kept.length === names.length) return
        for (const n of names)
          if (!kept.includes(n))
            sink.warn(
              'schema-required-unknown',
              childPointer(childPointer(childPointer(pointer, key), i), 'required'),
              `required names ${n}, which is not a property; it is dropped from required`,
            )
        if (kept.length > 0) branch.required = kept
        else delete branch.required
      })
    }
  }

  /**
   * `properties: { $ref: '#/…/properties' }` — a reference to a whole map of properties, which
   * bundlers write when a source file's `properties` is one `$ref` (DigitalOcean's load balancer
   * bodies): read literally it is one property named `$ref` whose schema is a string, and the
   * properties the branch requires (`droplet_ids`) are lost. The map it points at is meant.
   */
  const propertiesMap = (value: Record<string, unknown>, pointer: string): Record<string, unknown> => {
    const ref = value.$ref
    if (Object.keys(value).length !== 1 || typeof ref !== 'string' || !ref.startsWith('#')) return value
    const target = resolvePointer(document, ref)
    if (
      !isRecord(target) ||
      Object.values(target).some((schema) => !isRecord(schema) && typeof schema !== 'boolean')
    )
      return value
    sink.warn(
      'schema-properties-ref',
      pointer,
      `properties is a $ref to ${ref}, a map of properties; its properties are used (not one property named $ref)`,
    )
    return target
  }

  const walkProperties = (
    properties: Record<string, unknown>,
    pointer: string,
    defs: Set<string>,
    readOnly: Set<string>,
  ) => {
    const out: Record<string, JsonSchema> = {}
    for (const [name, value] of Object.entries(properties)) {
      const at = childPointer(pointer, name)
      if (value === false) {
        sink.warn('schema-false-property', at, `property ${name} has the schema false; it is left out`)
        continue
      }
      const schema = walk(value, at, defs)
      // Request-side schemas: a read-only property is the server's to set, never an argument.
      if (side === 'response') setOwn(out, name, outputPropertySchema(name, schema))
      else if (schema.readOnly === true) readOnly.add(name)
      else setOwn(out, name, typedOrAnyValue(schema))
    }
    return out
  }

  const walkItems = (value: unknown, pointer: string, defs: Set<string>): Record<string, unknown> => {
    // Draft 4–2019 tuple form `items: [a, b]` is `prefixItems` in 2020-12.
    if (Array.isArray(value))
      return {
        prefixItems: value.map((item, i) => inValuePosition(walk(item, childPointer(pointer, i), defs))),
      }
    if (value === false) return { items: false }
    if (value === true) return { items: side === 'request' ? anyValueSchema() : {} }
    return { items: inValuePosition(walk(value, pointer, defs)) }
  }

  const mapValues = (value: Record<string, unknown>, pointer: string, defs: Set<string>, scope: Scope) =>
    Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, walk(v, childPointer(pointer, k), defs, scope)]),
    )

  const repairArrayItems = (out: Record<string, unknown>, pointer: string): void => {
    if (!typeIncludes(out.type, 'array') || 'items' in out || 'prefixItems' in out) return
    sink.warn(
      'schema-array-without-items',
      pointer,
      'array schema without items; items of any value are assumed',
    )
    out.items = anyValueSchema()
  }

  /**
   * `required` ⊆ the names the object declares (SPEC §1): its properties, its allOf members' and
   * oneOf/anyOf branches' (repairClosedAlternatives places those), and its parent's when it is a
   * member of one. A name declared nowhere is dropped with a warning: it is a typo or a stale name
   * (Box's `appears.start`), which no agent can fill — it is not invented as an any-type property.
   * A name a schema-valued additionalProperties or a patternProperties entry admits is declared by
   * it and stays. An object that declares no names at all keeps its `required` when it is open (a
   * presence rule) and loses it when it is closed (`additionalProperties: false`: unsatisfiable).
   */
  const repairRequired = (
    out: Record<string, unknown>,
    pointer: string,
    readOnly: ReadonlySet<string>,
    scope: Scope,
  ): void => {
    if (!('required' in out)) return
    if (!Array.isArray(out.required) || out.required.some((name) => typeof name !== 'string')) {
      sink.warn(
        'schema-required-unknown',
        pointer,
        'required must be a list of property names; it is ignored',
      )
      delete out.required
      return
    }
    if (out.type !== undefined && !typeIncludes(out.type, 'object')) {
      moveRequiredIntoItems(out, pointer)
      return
    }
    const declared = new Set([...(scope.inherited ?? []), ...declaredNames(out, document)])
    const closed = out.additionalProperties === false || out.unevaluatedProperties === false
    if (declared.size === 0 && !closed) return
    const admitted = admittedBy(out)
    const names = [...new Set(out.required as string[])]
    const known = names.filter((name) => declared.has(name) || admitted(name))
    for (const name of names) {
      if (known.includes(name) || readOnly.has(name)) continue
      sink.warn(
        'schema-required-unknown',
        childPointer(pointer, 'required'),
        closed && declared.size === 0
          ? `required names ${name}, but the object is closed and declares no properties; it is dropped from required`
          : `required names ${name}, which is not a property; it is dropped from required`,
      )
    }
    if (known.length > 0) out.required = known
    else delete out.required
  }

  /**
   * `required` on a schema that is no object names properties it cannot have. On an array whose
   * items declare those names (Box's skill cards: `appears: { type: array, items: { properties:
   * { start, end } }, required: [start, end] }`) it was meant for the items: it moves there.
   * Whatever the items do not declare is dropped. Each name is a warning at the `required`.
   */
  const moveRequiredIntoItems = (out: Record<string, unknown>, pointer: string): void => {
    const names = [...new Set(out.required as string[])]
    const items = isRecord(out.items) ? out.items : undefined
    const itemNames = items && isRecord(items.properties) ? items.properties : {}
    const moved = names.filter((name) => Object.hasOwn(itemNames, name))
    for (const name of names) {
      sink.warn(
        'schema-required-unknown',
        childPointer(pointer, 'required'),
        moved.includes(name)
          ? `required names ${name}, a property of the array's items, not of the array; it is moved into items`
          : `required names ${name}, but the schema is no object; it is dropped from required`,
      )
    }
    delete out.required
    if (items && moved.length > 0) {
      const own = Array.isArray(items.required) ? (items.required as string[]) : []
      out.items = { ...items, required: [...new Set([...own, ...moved])] }
    }
  }

  const defsFor = (refs: Iterable<string>): Record<string, JsonSchema> => {
    const pending = [...refs]
    const closed = new Map<string, JsonSchema>()
    while (pending.length > 0) {
      const key = pending.pop()!
      const name = defName(key)
      if (closed.has(name)) continue
      const definition = definitionOf(key)
      closed.set(name, definition.schema)
      pending.push(...definition.defs)
    }
    return Object.fromEntries([...closed].sort(([a], [b]) => a.localeCompare(b)))
  }

  return { normalize: (node, pointer) => normalize(node, pointer), defsFor }
}

/** Property names of an object schema, its allOf members' included. */
function propertyNames(schema: unknown, depth = 0): Set<string> {
  if (!isRecord(schema) || depth > 4) return new Set()
  const names = new Set(isRecord(schema.properties) ? Object.keys(schema.properties) : [])
  for (const member of Array.isArray(schema.allOf) ? schema.allOf : []) {
    for (const name of propertyNames(member, depth + 1)) names.add(name)
  }
  return names
}

function refSiblings(node: Record<string, unknown>, side: Side): Record<string, unknown> {
  const siblings: Record<string, unknown> = {}
  for (const key of REF_SIBLINGS) {
    if (!Object.hasOwn(node, key) || (side === 'response' && !isOutputKeyword(key, node[key]))) continue
    siblings[key] = node[key]
  }
  return siblings
}

function typeIncludes(type: unknown, name: string): boolean {
  return type === name || (Array.isArray(type) && type.includes(name))
}

/** Swagger leftovers the upgrader keeps: `x-nullable` and `type: file`. */
function repairType(source: Record<string, unknown>, out: Record<string, unknown>): void {
  if (out.type === 'file') {
    out.type = 'string'
    out.format = 'binary'
  }
  if (source['x-nullable'] === true && typeof out.type === 'string') out.type = [out.type, 'null']
}

/**
 * The `$defs` key of a recursive definition: the component name when it is a plain one
 * (unique by construction), else the last pointer token with a hash of the pointer.
 */
function defName(ref: string): string {
  const component = /^#\/components\/schemas\/([^/]+)$/.exec(ref)
  const token = unescapePointerToken(component?.[1] ?? ref.split('/').pop() ?? 'schema')
  const clean = token.replace(/[^a-zA-Z0-9_.-]/g, '_').slice(0, 48) || 'schema'
  return component && clean === token ? clean : `${clean}_${shortHash(ref, 6)}`
}

/** The cache key of a reference normalized in a scope: the scope's names are part of the result. */
function scopeKey(ref: string, scope: Scope): string {
  if (!scope.inherited && !scope.condition) return ref
  return `${ref}\u0000${scope.condition ? '?' : ''}${[...(scope.inherited ?? [])].sort().join('\u0000')}`
}

/**
 * Property names a schema declares for its request instance: its own properties but the read-only
 * ones and, following local references, its allOf members' and oneOf/anyOf branches'.
 */
function declaredNames(schema: unknown, document: unknown, depth = 0): Set<string> {
  const node =
    isRecord(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#')
      ? resolvePointer(document, schema.$ref)
      : schema
  if (!isRecord(node) || depth > 8) return new Set()
  const names = new Set<string>()
  for (const [name, property] of Object.entries(referencedMap(node.properties, document)))
    if (!isReadOnly(property, document)) names.add(name)
  const members = [
    ...(Array.isArray(node.allOf) ? node.allOf : []),
    ...(Array.isArray(node.oneOf) ? node.oneOf : []),
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
  ]
  for (const member of members) for (const name of declaredNames(member, document, depth + 1)) names.add(name)
  return names
}

/**
 * A read-only property (its own schema's, or its reference's): the server sets it, so a request
 * schema leaves it out and declares no such name for a member's or a branch's `required` to keep
 * (issue 42 class 7: allOf over a component whose `id` is read-only and required).
 */
function isReadOnly(property: unknown, document: unknown): boolean {
  if (!isRecord(property)) return false
  if (property.readOnly === true) return true
  const ref = property.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#')) return false
  const target = resolvePointer(document, ref)
  return isRecord(target) && target.readOnly === true
}

/** A `properties` value, or the map it points at when it is written as one `$ref` (see propertiesMap). */
function referencedMap(value: unknown, document: unknown): Record<string, unknown> {
  if (!isRecord(value)) return {}
  const ref = value.$ref
  if (Object.keys(value).length !== 1 || typeof ref !== 'string' || !ref.startsWith('#')) return value
  const target = resolvePointer(document, ref)
  return isRecord(target) ? target : value
}

/** Whether a name not in properties is still declared: by a patternProperties entry or a schema-valued additionalProperties. */
/**
 * The names a walked schema declares by itself and through its allOf/oneOf/anyOf members, without
 * following references: undefined when a reference stands in the way.
 */
function localNames(schema: Record<string, unknown>, depth = 0): Set<string> | undefined {
  if (typeof schema.$ref === 'string' || depth > 8) return undefined
  const names = new Set(Object.keys(isRecord(schema.properties) ? schema.properties : {}))
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const members = schema[key]
    if (!Array.isArray(members)) continue
    for (const member of members) {
      if (!isRecord(member)) continue
      const inner = localNames(member, depth + 1)
      if (inner === undefined) return undefined
      for (const name of inner) names.add(name)
    }
  }
  return names
}

function admittedBy(schema: Record<string, unknown>): (name: string) => boolean {
  const extra = schema.additionalProperties
  // `{ not: {} }` is how a `false` schema is normalized: it admits nothing.
  const admitsNothing = isRecord(extra) && isRecord(extra.not) && Object.keys(extra.not).length === 0
  if (isRecord(extra) && !admitsNothing) return () => true
  const patterns = isRecord(schema.patternProperties) ? Object.keys(schema.patternProperties) : []
  // Run by RE2, never by V8's backtracking engine (issue 41 class 1); a pattern it cannot run admits nothing.
  const regexes = patterns.flatMap((pattern) => linearPattern(pattern) ?? [])
  return (name) => regexes.some((regex) => regex.test(name))
}
