import type { JsonSchema } from './types.js'

/*
 * What normalize-schema.ts makes and its callers use (derive-*.ts, output-schema.ts), apart from
 * it, so that output-schema.ts, whose keyword rules the normalizer applies, need not import the
 * normalizer back.
 */

/** A normalized schema and the recursive definitions (`$defs` entries) it refers to. */
export interface NormalizedSchema {
  readonly schema: JsonSchema
  /** Reference pointers (`#/components/schemas/Node`) that stay as `$ref: '#/$defs/…'`. */
  readonly defs: ReadonlySet<string>
}

/** One side's schema walker: request schemas (arguments) or response schemas (typed results). */
export interface SchemaWalker {
  /** Turns an OpenAPI 3.1 schema into a self-contained JSON Schema of this side (see walkKeywords). */
  normalize(node: unknown, pointer: string): NormalizedSchema
  /** The `$defs` map for a set of recursive definitions, closed over what they refer to. */
  defsFor(refs: Iterable<string>): Record<string, JsonSchema>
}

export interface SchemaContext extends SchemaWalker {
  /** The response side: the lenient output schemas of output-schema.ts, walked and cached apart. */
  readonly output: SchemaWalker
  /** Follows `$ref` chains of non-schema objects (parameters, request bodies, path items). */
  resolveObject(node: unknown, pointer: string): { value: unknown; pointer: string } | undefined
  /** Where a chain of local `$ref`s leads, silently (undefined when it leads nowhere or loops). */
  followRefs(node: unknown): unknown
}
