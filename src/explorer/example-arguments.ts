import { createRequire } from 'node:module'
import type FastCheck from 'fast-check'
import { type LinearPattern, linearPattern } from '../catalog/linear-pattern.js'
import type { JsonSchema } from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'
import { resolvePointer } from '../util/json-pointer.js'

/** Deeper than this, an example stops at the schema's required minimum (`{}`, `[]`). */
const MAX_DEPTH = 8

/** Stand-ins for the string formats agents meet most; each one valid for its format. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '12:00:00Z',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  byte: 'ZXhhbXBsZQ==',
  binary: 'example',
  duration: 'P1D',
}

/**
 * The arguments "Try it" starts from (issue 19): every required argument, recursively, from the
 * schema's own `examples`, `example`, `default`, `const` or first `enum` value where it has one,
 * else the smallest value its type, format and bounds admit. Optional arguments are left out, so
 * the example is short and says what a call cannot do without. A string with a `pattern` is drawn
 * to match it; a pattern no generator satisfies is possible, so the caller checks the example with
 * the tool's validator and says so.
 */
export function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const value = exampleOf(schema, schema, 0, new Set())
  return isRecord(value) ? value : {}
}

function exampleOf(schema: unknown, root: JsonSchema, depth: number, refs: Set<string>): unknown {
  if (!isRecord(schema)) return null
  const given = givenExample(schema)
  if (given !== undefined) return given
  if (typeof schema.$ref === 'string') {
    if (refs.has(schema.$ref) || depth >= MAX_DEPTH) return null
    const target = schema.$ref.startsWith('#') ? resolvePointer(root, schema.$ref) : undefined
    return target ? exampleOf(target, root, depth + 1, new Set([...refs, schema.$ref])) : null
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const branches = schema[keyword]
    if (Array.isArray(branches) && branches.length > 0) {
      const branch = branches.find((b) => !(isRecord(b) && b.type === 'null')) ?? branches[0]
      return exampleOf({ ...withoutKeyword(schema, keyword), ...(branch as object) }, root, depth, refs)
    }
  }
  if (Array.isArray(schema.allOf)) {
    const merged = schema.allOf.reduce<Record<string, unknown>>(
      (all, part) => mergeObjects(all, isRecord(part) ? part : {}),
      withoutKeyword(schema, 'allOf'),
    )
    return exampleOf(merged, root, depth, refs)
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectExample(schema, root, depth, refs)
    case 'array':
      return arrayExample(schema, root, depth, refs)
    case 'string':
      return stringExample(schema)
    case 'integer':
      return numberExample(schema, true)
    case 'number':
      return numberExample(schema, false)
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return isRecord(schema.properties) ? objectExample(schema, root, depth, refs) : 'example'
  }
}

function givenExample(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.example !== undefined) return schema.example
  if (schema.default !== undefined) return schema.default
  if (schema.const !== undefined) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return schema.enum.find((value) => value !== null) ?? schema.enum[0]
  return undefined
}

function typeOf(schema: Record<string, unknown>): string | undefined {
  const { type } = schema
  if (typeof type === 'string') return type
  if (Array.isArray(type)) return type.find((t) => t !== 'null') ?? type[0]
  return undefined
}

function objectExample(
  schema: Record<string, unknown>,
  root: JsonSchema,
  depth: number,
  refs: Set<string>,
): Record<string, unknown> {
  const example: Record<string, unknown> = {}
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required : []
  if (depth >= MAX_DEPTH) return example
  for (const name of required) {
    if (typeof name !== 'string') continue
    // Keys are a spec's own: `__proto__` stays a key (defined, not assigned through the setter).
    Object.defineProperty(example, name, {
      value: exampleOf(properties[name] ?? {}, root, depth + 1, refs),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return example
}

function arrayExample(
  schema: Record<string, unknown>,
  root: JsonSchema,
  depth: number,
  refs: Set<string>,
): unknown[] {
  const minItems = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 3) : 0
  if (minItems === 0 || depth >= MAX_DEPTH) return []
  const item = exampleOf(schema.items ?? {}, root, depth + 1, refs)
  if (schema.uniqueItems !== true) return Array.from({ length: minItems }, () => item)
  // Distinct items: numbered strings, else one item (a short example beats an invalid one).
  if (typeof item !== 'string') return [item]
  return Array.from({ length: minItems }, (_, i) => (i === 0 ? item : `${item.slice(0, -1) || item}${i}`))
}

function stringExample(schema: Record<string, unknown>): string {
  const format = typeof schema.format === 'string' ? FORMAT_EXAMPLES[schema.format] : undefined
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY
  let text = format ?? 'example'
  if (text.length < min) text = text.padEnd(Math.min(min, 1_000), 'x')
  if (text.length > max) text = text.slice(0, Math.max(0, max))
  if (typeof schema.pattern !== 'string') return text
  // Matched by RE2 as the validator matches it, never by V8's backtracking engine: a planted
  // `^(a+)+$` held the event loop 8.7 s here, with no caller at all (issue 41 class 1). A pattern
  // RE2 cannot run is one the catalog left out; the example then ignores it.
  const linear = linearPattern(schema.pattern)
  if (!linear || linear.test(text)) return text
  return matching(schema.pattern, linear, min, max) ?? text
}

let loaded: typeof FastCheck | undefined

/**
 * fast-check, loaded on the first pattern drawn: only a tool page's example needs it, and its
 * source (≈ 380 KB) would otherwise sit in every gateway's heap. Its CommonJS build, so that the
 * example stays synchronous.
 */
function fastCheck(): typeof FastCheck {
  loaded ??= createRequire(import.meta.url)('fast-check') as typeof FastCheck
  return loaded
}

/** Draws made per pattern, with a fixed seed: the same schema always gets the same example. */
const PATTERN_DRAWS = 30

/**
 * A string the pattern matches and the length bounds admit, drawn by fast-check's stringMatching
 * (a maintained regex-to-string generator; randexp's last release is years old). The shortest
 * draw wins: an example should be easy to read and edit.
 */
function matching(source: string, linear: LinearPattern, min: number, max: number): string | undefined {
  try {
    const fc = fastCheck()
    // stringMatching reads the pattern's syntax to build strings; it never runs the RegExp.
    const draws = fc.sample(fc.stringMatching(new RegExp(source, 'u'), { size: 'xsmall' }), {
      numRuns: PATTERN_DRAWS,
      seed: 42,
    })
    const fitting = draws.filter((draw) => draw.length >= min && draw.length <= max && linear.test(draw))
    return fitting.sort((a, b) => a.length - b.length)[0]
  } catch {
    return undefined // a construct stringMatching cannot generate (lookbehind, backreference)
  }
}

function numberExample(schema: Record<string, unknown>, integer: boolean): number {
  const num = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined)
  const step = num('multipleOf') ?? 1
  let low =
    num('minimum') ?? (num('exclusiveMinimum') !== undefined ? num('exclusiveMinimum')! + step : undefined)
  const high =
    num('maximum') ?? (num('exclusiveMaximum') !== undefined ? num('exclusiveMaximum')! - step : undefined)
  low ??= high !== undefined ? Math.min(1, high) : 1
  let value = Math.ceil(low / step) * step
  if (integer) value = Math.ceil(value)
  return Object.is(value, -0) ? 0 : value
}

function withoutKeyword(schema: Record<string, unknown>, keyword: string): Record<string, unknown> {
  const { [keyword]: _dropped, ...rest } = schema
  return rest
}

/** allOf parts merged as far as an example needs: properties and required lists joined. */
function mergeObjects(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const properties = {
    ...(isRecord(a.properties) ? a.properties : {}),
    ...(isRecord(b.properties) ? b.properties : {}),
  }
  const required = [
    ...(Array.isArray(a.required) ? a.required : []),
    ...(Array.isArray(b.required) ? b.required : []),
  ]
  return {
    ...a,
    ...b,
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(required.length > 0 ? { required: [...new Set(required)] } : {}),
  }
}
