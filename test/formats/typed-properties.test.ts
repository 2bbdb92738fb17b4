// Issue 17, classes 2 and 3, over every real-world fixture and the shipped specs: every property
// of every rendered document says its type (or is a union, a reference, or the any-value form),
// OpenAI and Claude say the same type property by property, and every required field of every
// request body is an argument of its tool (composed bodies included).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  buildCatalog,
  type Catalog,
  DISCOVER_VIEW,
  fsSourceReader,
  type LoadResult,
  loadSpecsDirectory,
  type Tool,
} from '../../src/catalog/index.js'
import { isAnyValueSchema } from '../../src/catalog/infer-type.js'
import { renderClaudeTools, renderMcpTools, renderOpenAITools } from '../../src/formats/index.js'
import { isRecord } from '../../src/util/is-record.js'
import { resolvePointer } from '../../src/util/json-pointer.js'
import { loadFixture, realWorldFiles } from '../helpers/corpus.js'
import { fromRoot } from '../helpers/paths.js'

type Json = Record<string, unknown>

const corpus = realWorldFiles()

/** Keywords whose value is one schema / a list of schemas / a map of schemas. */
const ONE = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
const MAP = ['properties', '$defs', 'patternProperties', 'dependentSchemas']
/** Positions where a schema stands for a value an agent writes. */
const VALUE_POSITIONS = new Set(['properties', '$defs', 'items', 'prefixItems', 'anyOf', 'oneOf'])

/** Every schema in a value position at any depth, with its path; the any-value form is one leaf. */
function eachValueSchema(schema: Json, visit: (node: Json, path: string) => void, path = ''): void {
  if (isAnyValueSchema(schema)) return
  const children: [string, unknown, string][] = []
  for (const key of ONE) if (isRecord(schema[key])) children.push([key, schema[key], `${path}/${key}`])
  for (const key of LIST)
    for (const [i, child] of ((schema[key] as unknown[]) ?? []).entries())
      children.push([key, child, `${path}/${key}/${i}`])
  for (const key of MAP)
    for (const [name, child] of Object.entries((schema[key] as Json) ?? {}))
      children.push([key, child, `${path}/${key}/${name}`])
  for (const [key, child, at] of children) {
    if (!isRecord(child)) continue
    if (VALUE_POSITIONS.has(key)) visit(child, at)
    eachValueSchema(child, visit, at)
  }
}

function isTyped(node: Json, refs: boolean): boolean {
  if (node.type !== undefined || Array.isArray(node.anyOf) || Array.isArray(node.oneOf)) return true
  return refs && typeof node.$ref === 'string'
}

function untyped(schema: Json, refs: boolean): string[] {
  const found: string[] = []
  eachValueSchema(schema, (node, path) => {
    if (!isTyped(node, refs)) found.push(`${path}: ${JSON.stringify(node).slice(0, 160)}`)
  })
  return found
}

/** The type a schema says, as one comparable string. */
function typeOf(node: Json): string {
  if (node.type !== undefined) return [node.type].flat().map(String).sort().join('|')
  if (Array.isArray(node.anyOf) || Array.isArray(node.oneOf)) return 'union'
  return 'none'
}

/** Claude's rendering (references unrolled) against OpenAI's (references kept), type by type. */
function compareTypes(openai: Json, claude: Json, defs: Json, path: string, out: string[]): void {
  let left = openai
  for (let hops = 0; typeof left.$ref === 'string' && hops < 8; hops++) {
    const { $ref, ...siblings } = left
    left = { ...(defs[String($ref).slice('#/$defs/'.length)] as Json), ...siblings }
  }
  if (typeOf(left) !== typeOf(claude)) out.push(`${path}: OpenAI ${typeOf(left)}, Claude ${typeOf(claude)}`)
  // Past its unrolling depth Claude describes a recursive type in words: nothing more to compare.
  if (String(claude.description ?? '').includes('(recursive; nesting deeper')) return
  if (isAnyValueSchema(left)) return
  for (const key of ['items', 'additionalProperties'])
    if (isRecord(left[key]) && isRecord(claude[key]))
      compareTypes(left[key] as Json, claude[key] as Json, defs, `${path}/${key}`, out)
  for (const key of LIST) {
    const a = (left[key] as Json[]) ?? []
    const b = (claude[key] as Json[]) ?? []
    if (a.length !== b.length) out.push(`${path}/${key}: ${a.length} vs ${b.length} schemas`)
    for (const [i, child] of a.entries())
      if (isRecord(child) && isRecord(b[i]))
        compareTypes(child, b[i] as Json, defs, `${path}/${key}/${i}`, out)
  }
  const a = (left.properties as Json) ?? {}
  const b = (claude.properties as Json) ?? {}
  if (Object.keys(a).join() !== Object.keys(b).join()) out.push(`${path}: different property names`)
  for (const [name, child] of Object.entries(a))
    if (isRecord(child) && isRecord(b[name]))
      compareTypes(child, b[name] as Json, defs, `${path}/properties/${name}`, out)
}

/** A schema of the source document with its `$ref` chain followed. */
function deref(document: unknown, schema: unknown, seen = new Set<string>()): Json {
  let node = schema
  while (isRecord(node) && typeof node.$ref === 'string' && !seen.has(node.$ref)) {
    seen.add(node.$ref)
    node = resolvePointer(document, node.$ref)
  }
  return isRecord(node) ? node : {}
}

/**
 * The required fields of a body schema read straight from the source (not through the catalog):
 * its own and its allOf members' `required`, for names some member declares and not read-only.
 * Undefined for a union (oneOf/anyOf) at the root: its required fields depend on the branch.
 */
function requiredFields(document: unknown, raw: unknown): string[] | undefined {
  const required = new Set<string>()
  const properties = new Map<string, Json>()
  let union = false
  const collect = (schema: unknown, depth: number) => {
    const node = deref(document, schema)
    if (depth > 16) return
    if (node.oneOf || node.anyOf) union = true
    for (const name of (node.required as string[]) ?? []) required.add(name)
    for (const [name, value] of Object.entries((node.properties as Json) ?? {}))
      properties.set(name, deref(document, value))
    for (const member of (node.allOf as unknown[]) ?? []) collect(member, depth + 1)
  }
  collect(raw, 0)
  if (union) return undefined
  return [...required].filter((name) => properties.has(name) && properties.get(name)!.readOnly !== true)
}

function unreachableBodyFields(tool: Tool, document: unknown): string[] {
  const contentType = tool.binding.bodyContentType
  if (!contentType || !tool.requestBody) return []
  const operation = resolvePointer(document, `#${tool.pointer}`) as Json
  const body = deref(document, operation.requestBody)
  const media = (body.content as Json | undefined)?.[contentType] as Json | undefined
  const names = requiredFields(document, media?.schema)
  const targets = Object.entries(tool.binding.arguments)
  const whole = targets.find(([, target]) => 'whole' in target)
  if (names === undefined) return whole ? [] : [`${tool.id}: a union body has no body argument`]
  const wholeSchema = whole ? ((tool.inputSchema.properties as Json)[whole[0]] as Json) : undefined
  return names
    .filter(
      (name) =>
        !targets.some(([, target]) => target.in === 'body' && 'name' in target && target.name === name) &&
        !(wholeSchema && isRecord(wholeSchema.properties) && Object.hasOwn(wholeSchema.properties, name)),
    )
    .map((name) => `${tool.id}: required body field ${name} is no argument`)
}

function checkCatalog(catalog: Catalog, loaded: LoadResult): void {
  const broken: string[] = []
  const openai = renderOpenAITools(catalog, DISCOVER_VIEW)
  const strict = renderOpenAITools(catalog, DISCOVER_VIEW, { strict: true })
  const claude = renderClaudeTools(catalog, DISCOVER_VIEW)
  const mcp = renderMcpTools(catalog, DISCOVER_VIEW)
  for (const [i, tool] of openai.entries()) {
    const name = tool.function.name
    for (const miss of untyped(tool.function.parameters, true)) broken.push(`OpenAI ${name}${miss}`)
    for (const miss of untyped(strict[i]!.function.parameters, true)) broken.push(`strict ${name}${miss}`)
    for (const miss of untyped(claude[i]!.input_schema, false)) broken.push(`Claude ${name}${miss}`)
    for (const miss of untyped(mcp[i]!.inputSchema, true)) broken.push(`MCP ${name}${miss}`)
    const parameters = tool.function.parameters
    compareTypes(parameters, claude[i]!.input_schema, (parameters.$defs as Json) ?? {}, name, broken)
  }
  const documents = new Map(loaded.sources.map((source) => [source.sourceId, source.document]))
  for (const tool of catalog.tools) broken.push(...unreachableBodyFields(tool, documents.get(tool.sourceId)))
  assert.deepEqual(broken.slice(0, 20), [], `${broken.length} broken`)
}

describe('every property typed, OpenAI and Claude agree, required body fields are arguments', () => {
  test('the shipped specs', async () => {
    const loaded = await loadSpecsDirectory(fromRoot('specs'), fsSourceReader)
    checkCatalog(buildCatalog(loaded), loaded)
  })

  for (const file of corpus) {
    test(file, async () => {
      const loaded = await loadFixture(file)
      checkCatalog(buildCatalog(loaded), loaded)
    })
  }
})
