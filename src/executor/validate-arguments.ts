import { format, type OutputUnit, Validator } from '@cfworker/json-schema'
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { countSchemaNodes } from '../catalog/limits.js'
import { linearPattern } from '../catalog/linear-pattern.js'
import type { JsonSchema, Tool } from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from '../util/schema-keywords.js'
import { repairArguments } from './repair-arguments.js'
import type { Violation } from './types.js'

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/**
 * Ajv compiles a schema to code on the event loop, about 0.25 ms per schema node here (a
 * 10,000-property tool: 3.7 s). Up to this many nodes (≈ 120 ms at most) a tool gets a compiled
 * validator; past it, an interpreting one that needs no compile (≈ 30 ms to set up for 10,000
 * properties, a few ms per call) — issue 14 class 7.
 */
export const COMPILED_SCHEMA_NODES = 500

export type ArgumentCheck =
  | { readonly ok: true; readonly arguments: Record<string, unknown> }
  | { readonly ok: false; readonly violations: readonly Violation[] }

export interface ArgumentValidator {
  check(tool: Tool, args: Readonly<Record<string, unknown>>): ArgumentCheck
}

/** Every violation of one value (the first only, for a check made with `firstOnly`). */
export type SchemaCheck = (value: unknown) => readonly Violation[]

/**
 * Validates arguments against a tool's input schema (SPEC §3 step 1), listing every violation.
 * One validator per tool per catalog version, made on the tool's first call (compiling all of a
 * 1,000-tool catalog at boot would cost seconds).
 *
 * What the advertised schema accepts, the executor accepts, as it was sent: arguments are first
 * checked as they are, by a validator that never coerces (Ajv's `coerceTypes` rewrote a string
 * into the array branch of a oneOf, so a value matching one branch matched two and was refused —
 * issue 17 class 7). Only arguments that fail are repaired (repair-arguments.ts: "5" for 5, one
 * value for a list, JSON text for an object) and checked again; the same repairs, and no other
 * coercion, for the compiled and the interpreted kind.
 */
export function createArgumentValidator(): ArgumentValidator {
  // ownProperties: an optional argument named `constructor` or `toString` left out is not the prototype's.
  const ajv = addFormats(
    new Ajv2020({
      allErrors: true,
      strict: false,
      ownProperties: true,
      logger: false,
      code: { regExp: linearRegExpEngine },
    }),
  )
  const checks = new Map<string, SchemaCheck>()
  const checkFor = (tool: Tool) => {
    let check = checks.get(tool.id)
    if (!check) {
      check = buildSchemaCheck(ajv, tool.inputSchema, { unusable: unusableInputSchema })
      checks.set(tool.id, check)
    }
    return check
  }
  return {
    check(tool, args) {
      const check = checkFor(tool)
      // Neither kind of check writes to the value (no coercion, defaults or removal): arguments
      // that pass as sent are used as they are, and only a repair works on a copy of them.
      if (check(args).length === 0) return { ok: true, arguments: args as Record<string, unknown> }
      const repaired = repairArguments(tool.inputSchema, structuredClone(args) as Record<string, unknown>)
      const violations = check(repaired)
      return violations.length === 0 ? { ok: true, arguments: repaired } : { ok: false, violations }
    },
  }
}

export interface SchemaCheckOptions {
  /** What every value gets when the schema cannot be used, given the reason. */
  readonly unusable: (reason: string) => Violation
  /** Stop at the first violation (the interpreter; an Ajv made without allErrors does so too). */
  readonly firstOnly?: boolean
}

/**
 * A check of one schema: compiled by `ajv` up to COMPILED_SCHEMA_NODES, interpreted past it (no
 * compile on the event loop). A schema Ajv cannot compile, or one the interpreter would run with
 * a keyword it cannot use, is never used unchecked: every value gets `unusable` with the reason
 * (arguments: every call is refused; the catalog repairs what it can, normalize-schema.ts, so
 * this is a last line).
 */
export function buildSchemaCheck(ajv: Ajv2020, schema: JsonSchema, options: SchemaCheckOptions): SchemaCheck {
  if (countSchemaNodes(schema, COMPILED_SCHEMA_NODES) > COMPILED_SCHEMA_NODES) {
    const defect = schemaDefect(ajv, schema)
    return defect === undefined ? interpreted(schema, options) : () => [options.unusable(defect)]
  }
  try {
    const validate = ajv.compile(schema)
    return (value) => (validate(value) ? [] : (validate.errors ?? []).map(toViolation))
  } catch (err) {
    return () => [options.unusable((err as Error).message)]
  }
}

/**
 * Ajv's documented hook for the regex engine (`code.regExp`): every `pattern`, patternProperties
 * name and propertyNames pattern a compiled check runs is matched by RE2, in linear time, never by
 * V8's backtracking engine (issue 41 class 1). A pattern RE2 cannot run throws: the schema is then
 * unusable (the catalog already left such patterns out, repair-keywords.ts; this is a last line).
 * `toString` is Ajv's key for sharing one compiled pattern, so it names the pattern.
 */
export const linearRegExpEngine = Object.assign(
  (pattern: string): { test: (text: string) => boolean; toString: () => string } => {
    const linear = linearPattern(pattern)
    if (!linear)
      throw new Error(`pattern ${JSON.stringify(pattern).slice(0, 200)} cannot be run in linear time`)
    return { test: (text) => linear.test(text), toString: () => `/${pattern}/linear` }
  },
  { code: 'linearRegExpEngine' },
)

/** Keywords whose values are data, not schemas: a `pattern` key inside them is no regex. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples'])

/**
 * What would make a schema unusable, found without compiling it (interpreted schemas are the large
 * ones): a keyword the 2020-12 meta-schema refuses, or a pattern that is no `u`-mode regex.
 */
function schemaDefect(ajv: Ajv2020, schema: JsonSchema): string | undefined {
  if (!ajv.validateSchema(schema)) return ajv.errorsText(ajv.errors)
  const pending: unknown[] = [schema]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      pending.push(...node)
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue
      const patterns = key === 'pattern' && typeof value === 'string' ? [value] : []
      if (key === 'patternProperties' && isRecord(value)) patterns.push(...Object.keys(value))
      const bad = patterns.find((pattern) => linearPattern(pattern) === undefined)
      if (bad !== undefined) return `pattern /${bad.slice(0, 200)}/ is no regex toolgate runs in linear time`
      pending.push(value)
    }
  }
  return undefined
}

/** Container keywords whose failure is reported again, more precisely, by the keyword inside them. */
const CONTAINERS = new Set([
  'properties',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'dependentSchemas',
  '$ref',
  '$dynamicRef',
  'allOf',
  'if',
  'then',
  'else',
])

/** A schema the interpreter still chokes on while validating never lets a call through, nor crashes it. */
function interpreted(schema: JsonSchema, { unusable, firstOnly = false }: SchemaCheckOptions): SchemaCheck {
  let validator: Validator
  try {
    // A copy: the interpreter marks the schema's nodes with their URIs, and catalog schemas are
    // frozen; in the copy, patterns run linearly (linearCopy).
    validator = new Validator(linearCopy(schema) as object, '2020-12', firstOnly)
  } catch (err) {
    return () => [unusable((err as Error).message)]
  }
  return (value) => {
    try {
      const { valid, errors } = validator.validate(value)
      if (valid) return []
      const precise = errors.filter((unit) => !CONTAINERS.has(unit.keyword))
      return (precise.length > 0 ? precise : errors.slice(0, 1)).map(unitToViolation)
    } catch (err) {
      return [unusable((err as Error).message)]
    }
  }
}

/** The format name a `pattern` becomes in an interpreted schema; its check is the pattern run by RE2. */
const PATTERN_FORMAT = 'toolgate-linear-pattern:'

/**
 * A copy of a schema for the interpreter, which has no regex hook: it runs `pattern` and
 * patternProperties names with `new RegExp(…, 'u')`, V8's backtracking engine. So in the copy:
 * - each `pattern` becomes a format check (the interpreter's `format` table is exported and
 *   mutable, and consulted per value) whose function runs the pattern with RE2; a node that
 *   already has a format gets it through an added allOf member;
 * - patternProperties are left out, with the additionalProperties beside them and every
 *   unevaluatedProperties (which depend on the names patterns match): a name-to-value rule has no
 *   other keyword to carry it, so the check admits more than the schema (never less) and the
 *   upstream judges those values. Compiled checks (up to COMPILED_SCHEMA_NODES) run them all.
 */
function linearCopy(schema: JsonSchema): unknown {
  const copy = structuredClone(schema) as unknown
  const nodes = schemaNodes(copy)
  const dropUnevaluated = nodes.some((node) => 'patternProperties' in node)
  for (const node of nodes) {
    if (typeof node.pattern === 'string') patternAsFormat(node)
    if ('patternProperties' in node) {
      delete node.patternProperties
      delete node.additionalProperties
    }
    if (dropUnevaluated) delete node.unevaluatedProperties
  }
  return copy
}

/** Keywords whose value is a map of name → schema. */
const SCHEMA_MAPS = ['properties', '$defs', 'definitions', ...SCHEMA_MAP_KEYWORDS]

/** Every schema object in a schema, by keyword (a property named `pattern` is no keyword). */
function schemaNodes(root: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = []
  const pending: unknown[] = [root]
  while (pending.length > 0) {
    const node = pending.pop()
    if (!isRecord(node)) continue
    found.push(node)
    for (const key of SCHEMA_KEYWORDS) pending.push(node[key])
    for (const key of SCHEMA_LIST_KEYWORDS)
      if (Array.isArray(node[key])) pending.push(...(node[key] as unknown[]))
    for (const key of SCHEMA_MAPS) if (isRecord(node[key])) pending.push(...Object.values(node[key]))
  }
  return found
}

function patternAsFormat(node: Record<string, unknown>): void {
  const pattern = node.pattern as string
  const name = PATTERN_FORMAT + pattern
  if (!Object.hasOwn(format, name)) {
    const linear = linearPattern(pattern)
    // Unreachable after schemaDefect (the schema is unusable then); refusing beats running V8's engine.
    format[name] = linear ? (text) => linear.test(text) : () => false
  }
  delete node.pattern
  if (node.format === undefined) node.format = name
  else node.allOf = [...(Array.isArray(node.allOf) ? node.allOf : []), { format: name }]
}

function unusableInputSchema(reason: string): Violation {
  return {
    path: '/',
    message: `cannot be checked: the tool's input schema is invalid (${String(reason).slice(0, 200)}); the call is refused until the spec is fixed`,
  }
}

function unitToViolation(unit: OutputUnit): Violation {
  const base = unit.instanceLocation.replace(/^#/, '')
  if (unit.keyword === 'required') {
    const name = /property "(.*)"\.$/.exec(unit.error)?.[1] ?? ''
    return { path: `${base}/${name}`, message: 'is required' }
  }
  if (unit.keyword === 'false') {
    const parent = base.slice(0, base.lastIndexOf('/'))
    return {
      path: base,
      message: parent === '' ? 'is not an argument of this tool' : 'is not a known property here',
    }
  }
  if (unit.keyword === 'enum') {
    const allowed = /any of (\[.*\])\.$/.exec(unit.error)?.[1]
    if (allowed)
      return { path: base || '/', message: `must be one of ${allowed.slice(1, -1).replaceAll(',', ', ')}` }
  }
  if (unit.keyword === 'format' && unit.error.includes(`"${PATTERN_FORMAT}`)) {
    return { path: base || '/', message: 'String does not match pattern' }
  }
  return { path: base || '/', message: unit.error.replace(/^Instance /, '').replace(/\.$/, '') }
}

function toViolation(error: ErrorObject): Violation {
  const base = error.instancePath || ''
  if (error.keyword === 'required') {
    return { path: `${base}/${error.params.missingProperty}`, message: 'is required' }
  }
  if (error.keyword === 'additionalProperties') {
    const name = String(error.params.additionalProperty)
    return {
      path: `${base}/${name}`,
      message: base === '' ? 'is not an argument of this tool' : 'is not a known property here',
    }
  }
  if (error.keyword === 'enum') {
    return {
      path: base || '/',
      message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
    }
  }
  return { path: base || '/', message: error.message ?? `fails ${error.keyword}` }
}
