import type { JsonSchema } from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'
import { setOwn } from '../util/own.js'

type Schema = Record<string, unknown>

/**
 * Common shapes of model output made canonical before validation (converters §5 item 5):
 * - `null` for an argument that cannot be null means "left out" — OpenAI strict mode sends every
 *   optional argument, as null when unused;
 * - a string holding JSON where an object or list is expected is decoded — strict mode carries
 *   free-form objects that way, and models often send sub-objects as JSON text.
 * - a scalar of the wrong kind where the schema names one type (null aside) is converted when
 *   that is exact: "5" for 5, "true" for true, 5 for "5", and one value where a list is expected.
 * The validator calls it only for arguments that failed as sent (validate-arguments.ts). Inside a
 * oneOf/anyOf, a value whose JSON type some branch admits is never converted — converting it could
 * make it match another branch too (issue 17 class 7); one no branch admits is converted for the
 * first branch whose type the conversion reaches.
 * Works on a copy; anything it cannot repair is left for validation to report.
 */
export function repairArguments(
  inputSchema: JsonSchema,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const defs = (inputSchema.$defs ?? {}) as Record<string, Schema>
  return repairValue(inputSchema as Schema, args, defs, 0) as Record<string, unknown>
}

const MAX_DEPTH = 64

function repairValue(schema: Schema, given: unknown, defs: Record<string, Schema>, depth: number): unknown {
  const resolved = resolveRef(schema, defs)
  if (depth > MAX_DEPTH || !resolved) return given
  if (typeof given === 'string' && expectsStructure(resolved)) {
    const decoded = tryParse(given)
    if (decoded !== undefined) return repairValue(resolved, decoded, defs, depth + 1)
  }
  const union = repairUnion(resolved, given, defs, depth)
  if (union !== given) return union
  const value = coerceScalar(resolved, given)
  if (Array.isArray(value) && isRecord(resolved.items)) {
    return value.map((item) => repairValue(resolved.items as Schema, item, defs, depth + 1))
  }
  if (isRecord(value) && isRecord(resolved.properties)) {
    const properties = resolved.properties as Record<string, Schema>
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const property = Object.hasOwn(properties, key) ? properties[key] : undefined
      if (item === null && property && !allowsNull(resolveRef(property, defs) ?? {})) continue
      // A caller's `__proto__` key (JSON.parse makes it an own key) stays a key, never a prototype.
      setOwn(out, key, property ? repairValue(property, item, defs, depth + 1) : item)
    }
    return out
  }
  return value
}

/** The value repaired for the first union branch that then admits its type, when no branch admits it as it is. */
function repairUnion(schema: Schema, given: unknown, defs: Record<string, Schema>, depth: number): unknown {
  const branches = (schema.oneOf ?? schema.anyOf) as unknown
  if (!Array.isArray(branches) || given === null || given === undefined) return given
  const resolved = branches.map((branch) => (isRecord(branch) ? resolveRef(branch, defs) : undefined))
  if (resolved.some((branch) => branch === undefined || admitsType(branch, given))) return given
  for (const branch of resolved as Schema[]) {
    const repaired = repairValue(branch, given, defs, depth + 1)
    if (repaired !== given && admitsType(branch, repaired)) return repaired
  }
  return given
}

/** Whether the schema's `type` (none: any) admits the value's JSON type. */
function admitsType(schema: Schema, value: unknown): boolean {
  const types = typesOf(schema)
  if (types.length === 0) return true
  if (value === null) return types.includes('null')
  if (Array.isArray(value)) return types.includes('array')
  if (typeof value === 'number')
    return types.includes('number') || (types.includes('integer') && Number.isInteger(value))
  return types.includes(typeof value)
}

function typesOf(schema: Schema): string[] {
  const { type } = schema
  if (typeof type === 'string') return [type]
  return Array.isArray(type) ? type.filter((name): name is string => typeof name === 'string') : []
}

/** The value as the one type its schema names, when the conversion loses nothing; else as it was. */
function coerceScalar(schema: Schema, value: unknown): unknown {
  const named = typesOf(schema).filter((name) => name !== 'null')
  const type = named.length === 1 ? named[0] : undefined
  if (type === undefined || value === null || value === undefined || admitsType(schema, value)) return value
  if (type === 'array') return Array.isArray(value) || isRecord(value) ? value : [value]
  if (typeof value === 'string') {
    if ((type === 'number' || type === 'integer') && value.trim() !== '' && Number.isFinite(Number(value))) {
      const number = Number(value)
      return type === 'number' || Number.isInteger(number) ? number : value
    }
    if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true'
    return value
  }
  if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value)
  return value
}

function resolveRef(schema: Schema, defs: Record<string, Schema>): Schema | undefined {
  if (typeof schema.$ref !== 'string') return schema
  return defs[schema.$ref.replace('#/$defs/', '')]
}

function expectsStructure(schema: Schema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  if (types.includes('string')) return false
  return (
    types.includes('object') ||
    types.includes('array') ||
    isRecord(schema.properties) ||
    isRecord(schema.items)
  )
}

/** Whether null may be what the schema holds: a schema that names no type, enum, const or union takes any value. */
function allowsNull(schema: Schema): boolean {
  if (schema.type !== undefined) return typesOf(schema).includes('null')
  if (Array.isArray(schema.enum)) return schema.enum.includes(null)
  if (schema.const !== undefined) return schema.const === null
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(branches)) return branches.some((branch) => isRecord(branch) && allowsNull(branch))
  return !isRecord(schema.properties) && !isRecord(schema.items)
}

function tryParse(text: string): object | undefined {
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined
  } catch {
    return undefined
  }
}
