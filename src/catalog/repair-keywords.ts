import { isRecord } from '../util/is-record.js'
import { childPointer } from '../util/json-pointer.js'
import { setOwn } from '../util/own.js'
import { SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from '../util/schema-keywords.js'
import type { ProblemSink } from './problems.js'
import { isUnicodeRegExp, repairPattern } from './repair-pattern.js'

type Schema = Record<string, unknown>

const NUMBERS = ['multipleOf', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']
const COUNTS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'maxContains',
  'minContains',
]
const FLAGS = ['uniqueItems', 'deprecated', 'readOnly', 'writeOnly']
const TEXTS = ['format', 'contentMediaType', 'contentEncoding', 'title', 'description']
const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer'])
/** Type names specs write for JSON types (Swagger codegen, Python, JSON Schema draft 3). */
const TYPE_ALIASES: Record<string, string> = {
  int: 'integer',
  int32: 'integer',
  int64: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  bool: 'boolean',
}

/**
 * Keywords whose value has a shape JSON Schema 2020-12 forbids, which Ajv refuses to compile
 * (issue 17 class 4): translated where the intent is plain, otherwise dropped, each with a warning
 * at its pointer, so every tool's schema compiles and every call is validated.
 * - `exclusiveMaximum: true` beside `maximum: 10` (OpenAPI 3.0 in a 3.1 document) → `exclusiveMaximum: 10`;
 * - a number or count written as a string (`"10"`) → the number; a flag written `"true"` → true;
 * - a `pattern` (or patternProperties name) that is no `u`-mode ECMAScript regex → its
 *   translation (repair-pattern.ts);
 * - a type name outside JSON's seven → its JSON name (`int` → integer) or left out.
 * Works in place on a schema the normalizer just built.
 */
export function repairKeywords(schema: Schema, pointer: string, sink: ProblemSink): void {
  const problem = (key: string, message: string) =>
    sink.warn('schema-keyword-invalid', childPointer(pointer, key), message)
  repairExclusiveBounds(schema, problem)
  // Indexed loops: this runs on every schema node, mostly in cold code, where a for…of allocates per step.
  for (let i = 0; i < NUMBERS.length; i++) repairNumber(schema, NUMBERS[i]!, false, problem)
  for (let i = 0; i < COUNTS.length; i++) repairNumber(schema, COUNTS[i]!, true, problem)
  for (let i = 0; i < FLAGS.length; i++) repairFlag(schema, FLAGS[i]!, problem)
  for (let i = 0; i < TEXTS.length; i++) repairText(schema, TEXTS[i]!, problem)
  repairTypeNames(schema, problem)
  repairShapes(schema, problem)
  if ('pattern' in schema) repairPatternKeyword(schema, pointer, sink)
  if (isRecord(schema.patternProperties)) repairPatternProperties(schema, pointer, sink)
}

type Report = (key: string, message: string) => void

/** OpenAPI 3.0's `exclusiveMaximum: true` makes the sibling `maximum` exclusive; 3.1 writes the bound itself. */
const EXCLUSIVE_BOUNDS = [
  ['exclusiveMaximum', 'maximum'],
  ['exclusiveMinimum', 'minimum'],
] as const

function repairExclusiveBounds(schema: Schema, problem: Report): void {
  for (let i = 0; i < EXCLUSIVE_BOUNDS.length; i++) {
    const exclusive = EXCLUSIVE_BOUNDS[i]![0]
    const bound = EXCLUSIVE_BOUNDS[i]![1]
    const flag = schema[exclusive]
    if (typeof flag !== 'boolean') continue
    const limit = schema[bound]
    delete schema[exclusive]
    if (flag && typeof limit === 'number') {
      schema[exclusive] = limit
      delete schema[bound]
      problem(exclusive, `${exclusive}: true is OpenAPI 3.0; read as ${exclusive}: ${limit}`)
    } else {
      problem(
        exclusive,
        flag
          ? `${exclusive}: true without a numeric ${bound} bounds nothing; it is left out`
          : `${exclusive}: false is OpenAPI 3.0 for "${bound} is inclusive"; it is left out`,
      )
    }
  }
}

function repairNumber(schema: Schema, key: string, count: boolean, problem: Report): void {
  if (!(key in schema)) return
  const value = schema[key]
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  const valid =
    typeof number === 'number' &&
    Number.isFinite(number) &&
    (!count || (Number.isInteger(number) && number >= 0)) &&
    (key !== 'multipleOf' || number > 0)
  if (valid && number === value) return
  if (valid) {
    schema[key] = number
    problem(key, `${key} must be a number, not the string ${JSON.stringify(value)}; read as ${number}`)
    return
  }
  delete schema[key]
  const expected = count ? 'a non-negative integer' : key === 'multipleOf' ? 'a positive number' : 'a number'
  problem(key, `${key} must be ${expected}, not ${JSON.stringify(value)}; it is left out`)
}

function repairFlag(schema: Schema, key: string, problem: Report): void {
  const value = schema[key]
  if (!(key in schema) || typeof value === 'boolean') return
  if (value === 'true' || value === 'false') {
    schema[key] = value === 'true'
    problem(key, `${key} must be a boolean, not the string ${JSON.stringify(value)}; read as ${value}`)
    return
  }
  delete schema[key]
  problem(key, `${key} must be a boolean, not ${JSON.stringify(value)}; it is left out`)
}

function repairText(schema: Schema, key: string, problem: Report): void {
  const value = schema[key]
  if (!(key in schema) || typeof value === 'string') return
  delete schema[key]
  problem(key, `${key} must be a string, not ${JSON.stringify(value)}; it is left out`)
}

/** A type that needs no repair: one JSON type name, or a list of distinct ones. */
function isPlainType(given: unknown): boolean {
  if (typeof given === 'string') return JSON_TYPES.has(given)
  if (!Array.isArray(given)) return false
  for (let i = 0; i < given.length; i++) {
    if (typeof given[i] !== 'string' || !JSON_TYPES.has(given[i])) return false
    for (let j = 0; j < i; j++) if (given[j] === given[i]) return false
  }
  return true
}

function repairTypeNames(schema: Schema, problem: Report): void {
  if (!('type' in schema)) return
  const given = schema.type
  if (isPlainType(given)) return
  const names = Array.isArray(given) ? given : [given]
  const known = names.map((name) => (typeof name === 'string' ? (TYPE_ALIASES[name] ?? name) : name))
  const kept = [...new Set(known.filter((name): name is string => JSON_TYPES.has(name as string)))]
  const same = Array.isArray(given)
    ? kept.length === given.length && kept.every((name, i) => name === given[i])
    : kept.length === 1 && kept[0] === given
  if (same) return
  if (kept.length === 0) delete schema.type
  else schema.type = kept.length === 1 && !Array.isArray(given) ? kept[0] : kept
  problem(
    'type',
    `type ${JSON.stringify(given)} names no JSON type or repeats one; ${kept.length === 0 ? 'it is left out' : `read as ${JSON.stringify(schema.type)}`}`,
  )
}

/** Sub-schema containers and lists of the wrong shape, which the walk passed through untouched. */
const OBJECT_SHAPED = ['properties', ...SCHEMA_MAP_KEYWORDS, 'dependentRequired']
const LIST_SHAPED = [...SCHEMA_LIST_KEYWORDS, 'enum', 'examples']

function repairShapes(schema: Schema, problem: Report): void {
  for (let i = 0; i < OBJECT_SHAPED.length; i++) {
    const key = OBJECT_SHAPED[i]!
    if (key in schema && !isRecord(schema[key])) {
      problem(key, `${key} must be an object, not ${JSON.stringify(schema[key])}; it is left out`)
      delete schema[key]
    }
  }
  for (let i = 0; i < LIST_SHAPED.length; i++) {
    const key = LIST_SHAPED[i]!
    if (!(key in schema)) continue
    const value = schema[key]
    const empty = Array.isArray(value) && value.length === 0 && key !== 'enum' && key !== 'examples'
    if (Array.isArray(value) && !empty) continue
    problem(key, `${key} must be a non-empty list, not ${JSON.stringify(value)}; it is left out`)
    delete schema[key]
  }
  const dependent = schema.dependentRequired
  if (isRecord(dependent)) {
    for (const [name, list] of Object.entries(dependent)) {
      if (Array.isArray(list) && list.every((item) => typeof item === 'string')) continue
      problem(
        'dependentRequired',
        `dependentRequired.${name} must be a list of property names; it is left out`,
      )
      delete dependent[name]
    }
  }
}

function repairPatternKeyword(schema: Schema, pointer: string, sink: ProblemSink): void {
  const given = schema.pattern
  const repaired = typeof given === 'string' ? repairPattern(given) : undefined
  if (repaired === given) return
  const at = childPointer(pointer, 'pattern')
  if (repaired === undefined) {
    delete schema.pattern
    sink.warn(problemCode(given), at, `${patternProblem(given)}; it is left out`)
    return
  }
  schema.pattern = repaired
  sink.warn('schema-pattern-invalid', at, `${patternProblem(given)}; read as ${JSON.stringify(repaired)}`)
}

function repairPatternProperties(schema: Schema, pointer: string, sink: ProblemSink): void {
  const entries = Object.entries(schema.patternProperties as Schema)
  if (entries.every(([name]) => repairPattern(name) === name)) return
  const out: Schema = {}
  for (const [name, value] of entries) {
    const repaired = repairPattern(name)
    if (repaired !== name) {
      const at = childPointer(pointer, 'patternProperties', name)
      const outcome = repaired === undefined ? 'it is left out' : `read as ${JSON.stringify(repaired)}`
      sink.warn(
        repaired === undefined ? problemCode(name) : 'schema-pattern-invalid',
        at,
        `${patternProblem(name)}; ${outcome}`,
      )
    }
    if (repaired !== undefined) setOwn(out, repaired, value)
  }
  schema.patternProperties = out
}

/** A valid regex left out only because it needs backtracking has its own code: the upstream still checks it. */
function problemCode(pattern: unknown): 'schema-pattern-invalid' | 'schema-pattern-unsupported' {
  return typeof pattern === 'string' && isUnicodeRegExp(pattern)
    ? 'schema-pattern-unsupported'
    : 'schema-pattern-invalid'
}

function patternProblem(pattern: unknown): string {
  if (typeof pattern !== 'string') return `pattern must be a string, not ${JSON.stringify(pattern)}`
  const quoted = JSON.stringify(pattern).slice(0, 200)
  return isUnicodeRegExp(pattern)
    ? `pattern ${quoted} needs a backtracking engine (a lookaround, a backreference, a repeat count over 1000), which toolgate does not run; values are not checked against it here (the upstream still checks them)`
    : `pattern ${quoted} is not an ECMAScript (u-mode) regular expression`
}
