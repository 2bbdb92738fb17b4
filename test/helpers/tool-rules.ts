/**
 * OpenAI's and Anthropic's published rules for tool definitions (research/protocols.md §5), as
 * code. Each function returns the broken rules of a whole document (empty when it passes).
 */
import { Ajv2020 } from 'ajv/dist/2020.js'

type Json = Record<string, unknown>

const NAME = /^[a-zA-Z0-9_-]{1,64}$/
const PROPERTY_KEY = /^[a-zA-Z0-9_.-]{1,64}$/
const MAX_DESCRIPTION = 1024
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
])
/** openai SDK `toStrictJsonSchema`: keywords it rejects in strict mode. */
const STRICT_FORBIDDEN = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'patternProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'prefixItems',
  'additionalItems',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  'oneOf',
  'default',
]
const COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not']

const ajv = new Ajv2020({ strict: false, validateFormats: false, logger: false })

/** Visits every sub-schema with its depth (objects nested in objects count as levels). */
function walk(schema: unknown, visit: (node: Json, depth: number) => void, depth = 1): void {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return
  const node = schema as Json
  visit(node, depth)
  for (const key of ['properties', '$defs', 'patternProperties']) {
    for (const child of Object.values((node[key] as Json) ?? {})) walk(child, visit, depth + 1)
  }
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'])
    walk(node[key], visit, depth + 1)
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'])
    for (const child of (node[key] as unknown[]) ?? []) walk(child, visit, depth)
}

function typesOf(node: Json): string[] {
  return Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === 'string' ? [node.type] : []
}

/**
 * Every schema is checked against the 2020-12 meta-schema; Ajv compiles all of a document of
 * fewer than 500 tools and every 10th of a larger one (Kubernetes: ~35 ms a compile).
 */
function shouldCompile(index: number, total: number): boolean {
  return total < 500 || index % 10 === 0
}

function schemaRules(
  schema: Json,
  at: string,
  broken: string[],
  options: { refs: boolean; compile: boolean },
): void {
  if (schema.type !== 'object') broken.push(`${at}: root type is not "object"`)
  for (const combinator of COMBINATORS) if (combinator in schema) broken.push(`${at}: root has ${combinator}`)
  for (const key of Object.keys((schema.properties as Json) ?? {}))
    if (!PROPERTY_KEY.test(key)) broken.push(`${at}: property key ${key}`)
  const defs = (schema.$defs ?? {}) as Json
  walk(schema, (node) => {
    if (typesOf(node).includes('array') && !('items' in node)) broken.push(`${at}: array without items`)
    if (typeof node.$ref === 'string') {
      if (!options.refs) broken.push(`${at}: $ref ${node.$ref} (not accepted)`)
      else if (!node.$ref.startsWith('#/$defs/') || !(node.$ref.slice(8) in defs))
        broken.push(`${at}: $ref ${node.$ref} does not resolve`)
    }
  })
  if (!ajv.validateSchema(schema))
    broken.push(`${at}: not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`)
  if (!options.compile) return
  try {
    ajv.compile(schema)
  } catch (err) {
    broken.push(`${at}: does not compile: ${(err as Error).message}`)
  }
}

function nameRules(names: string[], broken: string[]): void {
  const seen = new Set<string>()
  for (const name of names) {
    if (!NAME.test(name)) broken.push(`name ${name} breaks ^[a-zA-Z0-9_-]{1,64}$`)
    if (seen.has(name)) broken.push(`name ${name} is used twice`)
    seen.add(name)
  }
}

/** OpenAI Chat Completions tools, non-strict: `[{ type: "function", function: { name, description, parameters } }]`. */
export function openAIRules(document: unknown): string[] {
  const broken: string[] = []
  if (!Array.isArray(document)) return ['not an array of tools']
  nameRules(
    document.map((tool) => String((tool as Json).function && ((tool as Json).function as Json).name)),
    broken,
  )
  for (const [index, tool] of (document as Json[]).entries()) {
    const fn = tool.function as Json
    if (tool.type !== 'function' || !fn) broken.push('a tool is not { type: "function", function }')
    const at = String(fn?.name)
    if (typeof fn?.description !== 'string' || fn.description.length > MAX_DESCRIPTION)
      broken.push(`${at}: description`)
    schemaRules(fn?.parameters as Json, at, broken, {
      refs: true,
      compile: shouldCompile(index, document.length),
    })
    walk(fn?.parameters, (node) => {
      if ('default' in node)
        broken.push(`${at}: default keyword (not a supported keyword; said in the description)`)
    })
  }
  return broken
}

/**
 * OpenAI strict mode (function-calling guide "Strict mode"; openai SDK toStrictJsonSchema), with
 * the structured-outputs size limits (research/protocols.md §5): ≤ 5,000 properties, ≤ 10 levels,
 * ≤ 1,000 enum values in the whole schema, a string enum of over 250 values ≤ 15,000 characters,
 * and ≤ 120,000 characters of property names, definition names, enum and const values.
 */
export function openAIStrictRules(document: unknown): string[] {
  const broken = openAIRules(document)
  if (!Array.isArray(document)) return broken
  for (const tool of document as Json[]) {
    const fn = tool.function as Json
    const at = String(fn.name)
    if (fn.strict !== true) broken.push(`${at}: strict is not true`)
    const parameters = fn.parameters as Json
    if ('anyOf' in parameters) broken.push(`${at}: root anyOf`)
    let properties = 0
    let enumValues = 0
    // Property names, definition names, enum and const values (strings), all counted.
    let characters = Object.keys((parameters.$defs as Json) ?? {}).join('').length
    walk(parameters, (node, depth) => {
      const container = typesOf(node).some((t) => t === 'object' || t === 'array')
      if (container && depth - 1 > 10) broken.push(`${at}: objects or arrays nested deeper than 10 levels`)
      for (const keyword of STRICT_FORBIDDEN)
        if (keyword in node) broken.push(`${at}: ${keyword} in strict mode`)
      if (typeof node.format === 'string' && !STRICT_FORMATS.has(node.format))
        broken.push(`${at}: format ${node.format}`)
      if (Array.isArray(node.enum)) {
        enumValues += node.enum.length
        const strings = node.enum.filter((value): value is string => typeof value === 'string')
        const length = strings.join('').length
        characters += length
        if (node.enum.length > 250 && length > 15_000)
          broken.push(`${at}: an enum of over 250 values longer than 15,000 characters`)
      }
      if (typeof node.const === 'string') characters += node.const.length
      characters += Object.keys((node.properties as Json) ?? {}).join('').length
      if (typeof node.$ref === 'string' || Array.isArray(node.anyOf)) return
      const types = typesOf(node)
      if (types.length === 0) broken.push(`${at}: a schema without type`)
      if (!types.includes('object')) return
      const keys = Object.keys((node.properties as Json) ?? {})
      properties += keys.length
      if (node.additionalProperties !== false)
        broken.push(`${at}: an object without additionalProperties: false`)
      const required = (node.required as string[] | undefined) ?? []
      if (keys.some((key) => !required.includes(key)))
        broken.push(`${at}: an optional property (all must be required)`)
      if (required.some((key) => !keys.includes(key)))
        broken.push(`${at}: required names an undeclared property`)
    })
    if (properties > 5000) broken.push(`${at}: more than 5,000 properties`)
    if (enumValues > 1000) broken.push(`${at}: more than 1,000 enum values in the schema (${enumValues})`)
    if (characters > 120_000)
      broken.push(`${at}: names, enum and const values longer than 120,000 characters (${characters})`)
  }
  return broken
}

/** Anthropic Messages tools: `[{ name, description, input_schema }]`, object root, no top-level combinators, no $ref. */
export function anthropicRules(document: unknown): string[] {
  const broken: string[] = []
  if (!Array.isArray(document)) return ['not an array of tools']
  nameRules(
    document.map((tool) => String((tool as Json).name)),
    broken,
  )
  for (const [index, tool] of (document as Json[]).entries()) {
    const at = String(tool.name)
    if (Object.keys(tool).some((key) => !['name', 'description', 'input_schema'].includes(key)))
      broken.push(`${at}: unexpected key`)
    if (typeof tool.description !== 'string' || tool.description.length > MAX_DESCRIPTION)
      broken.push(`${at}: description`)
    schemaRules(tool.input_schema as Json, at, broken, {
      refs: false,
      compile: shouldCompile(index, document.length),
    })
  }
  return broken
}

/** openai/codex#20724: Responses namespace names, and the namespaces the runtime keeps for itself. */
const NAMESPACE_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const RESERVED_NAMESPACES = ['functions', 'multi_tool_use', 'file_search', 'web', 'browser', 'tool_search']

/**
 * OpenAI tool search (developers.openai.com/api/docs/guides/tools-tool-search): a `tool_search`
 * tool; functions deferred with `defer_loading: true`; for namespaces, deferral on the functions
 * inside and not on the namespace object; a namespace has a name and a description (SDK
 * `NamespaceTool`). Every function also keeps the rules of a Chat Completions function.
 */
export function openAIDeferredRules(document: unknown, options: { strict?: boolean } = {}): string[] {
  if (!Array.isArray(document)) return ['not an array of tools']
  const broken: string[] = []
  const tools = document as Json[]
  const searches = tools.filter((tool) => tool.type === 'tool_search')
  if (tools.length > 0 && searches.length !== 1) broken.push('not exactly one tool_search tool')
  const namespaces = tools.filter((tool) => tool.type === 'namespace')
  if (namespaces.length + searches.length !== tools.length)
    broken.push('a tool is neither namespace nor tool_search')
  const functions: Json[] = []
  const names = new Set<string>()
  for (const namespace of namespaces) {
    const at = `namespace ${String(namespace.name)}`
    if (typeof namespace.name !== 'string' || !NAMESPACE_NAME.test(namespace.name)) broken.push(`${at}: name`)
    if (RESERVED_NAMESPACES.includes(String(namespace.name))) broken.push(`${at}: reserved name`)
    if (names.has(String(namespace.name))) broken.push(`${at}: used twice`)
    names.add(String(namespace.name))
    if (typeof namespace.description !== 'string' || namespace.description.trim() === '')
      broken.push(`${at}: no description`)
    if ('defer_loading' in namespace) broken.push(`${at}: defer_loading on the namespace object`)
    const inside = (namespace.tools as Json[] | undefined) ?? []
    if (inside.length === 0) broken.push(`${at}: no functions`)
    for (const fn of inside) {
      if (fn.type !== 'function') broken.push(`${at}: ${String(fn.name)} is not a function`)
      if (fn.defer_loading !== true) broken.push(`${at}: ${String(fn.name)} is not deferred`)
      const { type: _type, defer_loading: _deferred, ...definition } = fn
      functions.push({ type: 'function', function: definition })
    }
  }
  broken.push(...(options.strict ? openAIStrictRules(functions) : openAIRules(functions)))
  return broken
}

/**
 * Anthropic's tool search tool (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool):
 * one search tool (`tool_search_tool_bm25_20251119` named `tool_search_tool_bm25`, or the regex
 * variant), not deferred — a request whose tools are all deferred is refused with 400; at most
 * 10,000 tools in the catalog; every other tool a Messages tool with `defer_loading: true`.
 */
export function anthropicDeferredRules(document: unknown): string[] {
  if (!Array.isArray(document)) return ['not an array of tools']
  const broken: string[] = []
  const tools = document as Json[]
  const SEARCH: Record<string, string> = {
    tool_search_tool_bm25_20251119: 'tool_search_tool_bm25',
    tool_search_tool_regex_20251119: 'tool_search_tool_regex',
  }
  const searches = tools.filter((tool) => typeof tool.type === 'string' && tool.type in SEARCH)
  if (tools.length > 0 && searches.length !== 1) broken.push('not exactly one tool search tool')
  for (const search of searches) {
    if (search.name !== SEARCH[String(search.type)]) broken.push(`search tool named ${String(search.name)}`)
    if (search.defer_loading === true) broken.push('the search tool is deferred')
  }
  const deferred = tools.filter((tool) => !searches.includes(tool))
  if (tools.length > 0 && tools.every((tool) => tool.defer_loading === true))
    broken.push('every tool is deferred')
  if (deferred.length > 10_000) broken.push('more than 10,000 tools')
  for (const tool of deferred)
    if (tool.defer_loading !== true) broken.push(`${String(tool.name)}: not deferred`)
  const names = new Set(deferred.map((tool) => String(tool.name)))
  for (const search of searches)
    if (names.has(String(search.name))) broken.push('a tool takes the search tool name')
  broken.push(...anthropicRules(deferred.map(({ defer_loading: _deferred, ...tool }) => tool)))
  return broken
}
