import { isRecord } from '../util/is-record.js'
import { childPointer } from '../util/json-pointer.js'
import { readParameterCliName } from './extensions.js'
import { UNCARRIED_HEADERS } from './gateway-headers.js'
import { type ArgumentCandidate, parameterCandidate } from './input-schema.js'
import type { ProblemSink } from './problems.js'
import type { SchemaContext } from './schema-context.js'
import type { Parameter, ParameterLocation } from './types.js'

const LOCATIONS: readonly ParameterLocation[] = ['path', 'query', 'header', 'cookie']
const DEFAULT_STYLE: Record<ParameterLocation, string> = {
  path: 'simple',
  query: 'form',
  header: 'simple',
  cookie: 'form',
}

export interface DerivedParameters {
  readonly parameters: Parameter[]
  readonly candidates: ArgumentCandidate[]
  readonly defs: Set<string>
}

/** `in:name` (name lower-cased) → the apiKey security scheme that sends it (derive-service.ts). */
export type CredentialParameters = ReadonlyMap<string, string>

interface ParameterSource {
  readonly list: unknown
  readonly pointer: string
}

/**
 * Path-level then operation-level parameters, the operation's overriding the path's by
 * (name, in); every template variable of the path gets a parameter, declared or not.
 */
export function deriveParameters(
  levels: readonly ParameterSource[],
  path: string,
  ctx: SchemaContext,
  sink: ProblemSink,
  credentials: CredentialParameters = new Map(),
): DerivedParameters {
  const byKey = new Map<string, { parameter: Parameter; candidate: ArgumentCandidate }>()
  const defs = new Set<string>()
  const variables = templateVariables(path) // once per operation, not once per path parameter
  for (const level of levels) {
    if (level.list === undefined) continue
    if (!Array.isArray(level.list)) {
      sink.warn('parameter-invalid', level.pointer, 'parameters must be a list; they are ignored')
      continue
    }
    const seenHere = new Set<string>()
    level.list.forEach((raw, index) => {
      const derived = deriveParameter(
        raw,
        childPointer(level.pointer, index),
        path,
        variables,
        ctx,
        sink,
        defs,
        credentials,
      )
      if (!derived) return
      const key = parameterKey(derived.parameter)
      if (seenHere.has(key)) {
        sink.warn(
          'parameter-invalid',
          childPointer(level.pointer, index),
          `${key} is declared twice; the first is kept`,
        )
        return
      }
      seenHere.add(key)
      byKey.set(key, derived)
    })
  }
  addUndeclaredPathParameters(variables, byKey, sink, levels.at(-1)?.pointer ?? '')
  const entries = [...byKey.values()]
  return { parameters: entries.map((e) => e.parameter), candidates: entries.map((e) => e.candidate), defs }
}

function deriveParameter(
  raw: unknown,
  pointer: string,
  path: string,
  variables: readonly string[],
  ctx: SchemaContext,
  sink: ProblemSink,
  defs: Set<string>,
  credentials: CredentialParameters,
): { parameter: Parameter; candidate: ArgumentCandidate } | undefined {
  const resolved = ctx.resolveObject(raw, pointer)
  if (!resolved) return undefined
  const node = resolved.value
  if (!isRecord(node) || typeof node.name !== 'string' || node.name === '') {
    sink.warn('parameter-invalid', pointer, 'a parameter needs a name; it is left out')
    return undefined
  }
  const location = LOCATIONS.find((where) => where === node.in)
  if (!location) {
    sink.warn(
      'parameter-invalid',
      pointer,
      `parameter ${node.name} has in: ${JSON.stringify(node.in)}; it is left out`,
    )
    return undefined
  }
  const uncarried = location === 'header' ? UNCARRIED_HEADERS.get(node.name.toLowerCase()) : undefined
  if (uncarried !== undefined) {
    // Left out, and said so: an advertised argument the executor drops is a call silently changed.
    sink.warn(
      'parameter-header-uncarried',
      pointer,
      `header parameter ${node.name} is no argument: ${uncarried}`,
    )
    return undefined
  }
  const scheme = credentials.get(`${location}:${node.name.toLowerCase()}`)
  if (scheme !== undefined) {
    // The gateway sends the service's key under this name: an argument would be replaced (a
    // header) or dropped (a query or cookie pair), a call silently changed (issue 42 class 7).
    sink.warn(
      'parameter-credential',
      pointer,
      `${location} parameter ${node.name} is no argument: security scheme ${scheme} sends it from the service's credential`,
    )
    return undefined
  }
  if (location === 'path' && !variables.includes(node.name)) {
    sink.warn(
      'parameter-invalid',
      pointer,
      `path parameter ${node.name} is not in the path ${path}; it is left out`,
    )
    return undefined
  }
  const { schema: declared, contentType } = parameterSchema(node, resolved.pointer, ctx, sink, defs)
  const schema = location === 'path' ? nonEmptySegment(declared) : declared
  if (location === 'path' && node.required !== true) {
    sink.warn(
      'parameter-path-optional',
      pointer,
      `path parameter ${node.name} is not marked required; it is required`,
    )
  }
  const style = typeof node.style === 'string' ? node.style : DEFAULT_STYLE[location]
  const parameter: Parameter = {
    name: node.name,
    in: location,
    required: location === 'path' || node.required === true,
    ...(typeof node.description === 'string' ? { description: node.description } : {}),
    deprecated: node.deprecated === true,
    schema,
    style,
    explode: typeof node.explode === 'boolean' ? node.explode : style === 'form',
    allowReserved: node.allowReserved === true,
    ...(contentType ? { contentType } : {}),
    ...exampleStrings(node),
  }
  const cliName = readParameterCliName(node, resolved.pointer, sink)
  return { parameter, candidate: parameterCandidate(parameter, cliName, resolved.pointer) }
}

function parameterSchema(
  node: Record<string, unknown>,
  pointer: string,
  ctx: SchemaContext,
  sink: ProblemSink,
  defs: Set<string>,
) {
  if (node.schema !== undefined)
    return { schema: collect(ctx.normalize(node.schema, childPointer(pointer, 'schema')), defs) }
  const content = isRecord(node.content) ? Object.entries(node.content)[0] : undefined
  if (content && isRecord(content[1])) {
    const at = childPointer(pointer, 'content', content[0], 'schema')
    return { schema: collect(ctx.normalize(content[1].schema ?? {}, at), defs), contentType: content[0] }
  }
  sink.warn(
    'parameter-invalid',
    pointer,
    `parameter ${String(node.name)} has neither schema nor content; a string is assumed`,
  )
  return { schema: { type: 'string' } }
}

/** A path segment cannot be empty: `/epochs/1/blocks/` would be another route. */
function nonEmptySegment(schema: Parameter['schema']): Parameter['schema'] {
  const isString = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'))
  return isString && schema.minLength === undefined ? { ...schema, minLength: 1 } : schema
}

function collect(normalized: { schema: Parameter['schema']; defs: ReadonlySet<string> }, defs: Set<string>) {
  for (const def of normalized.defs) defs.add(def)
  return normalized.schema
}

/**
 * A parameter's identity, (in, name): a header's name in lower case, since HTTP compares header
 * names so (`X-Request-Id` at the path and `x-request-id` at the operation are one header).
 */
function parameterKey(parameter: Parameter): string {
  return `${parameter.in}:${parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name}`
}

/** `{name}` variables of a path template, fragment excluded. */
export function templateVariables(path: string): string[] {
  return [...path.split('#')[0]!.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]!)
}

function addUndeclaredPathParameters(
  variables: readonly string[],
  byKey: Map<string, { parameter: Parameter; candidate: ArgumentCandidate }>,
  sink: ProblemSink,
  pointer: string,
): void {
  for (const name of variables) {
    if (byKey.has(`path:${name}`)) continue
    sink.warn(
      'parameter-path-undeclared',
      pointer,
      `path variable {${name}} has no parameter; a required string is assumed`,
    )
    const parameter: Parameter = {
      name,
      in: 'path',
      required: true,
      deprecated: false,
      schema: { type: 'string' },
      style: 'simple',
      explode: false,
      allowReserved: false,
    }
    byKey.set(`path:${name}`, { parameter, candidate: parameterCandidate(parameter, undefined, pointer) })
  }
}

/** A parameter's own short string examples (`example`, or the values of `examples`), at most 3. */
function exampleStrings(node: Record<string, unknown>): { examples?: string[] } {
  const values = [
    node.example,
    ...(isRecord(node.examples)
      ? Object.values(node.examples).map((e) => (isRecord(e) ? e.value : undefined))
      : []),
  ]
  const examples = values
    .filter((value): value is string => typeof value === 'string' && value.length > 0 && value.length <= 200)
    .slice(0, 3)
  return examples.length > 0 ? { examples } : {}
}
