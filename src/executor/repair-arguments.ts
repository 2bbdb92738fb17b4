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
 * - a scalar of the wrong kind where the schema names one type is converted when that is exact:
 *   "5" for 5, "true" for true, 5 for "5", and one value where a list is expected — what Ajv's
 *   `coerceTypes: 'array'` does, here for both validators (validate-arguments.ts).
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

/** The value as the one type its schema names, when the conversion loses nothing; else as it was. */
function coerceScalar(schema: Schema, value: unknown): unknown {
  const { type } = schema
  if (typeof type !== 'string' || value === null || value === undefined) return value
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

function allowsNull(schema: Schema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  return Array.isArray(branches) && branches.some((branch) => isRecord(branch) && allowsNull(branch))
}

function tryParse(text: string): object | undefined {
  try {
    const parsed: unknown = JSON.parse(text)
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined
  } catch {
    return undefined
  }
}
