// Issue 17, catalog-wide, over every real-world fixture and the shipped specs: every parameter the
// source document declares for an operation is an argument of its tool (under its own or its
// sanitized name), and `required` names only properties something in scope declares, in every
// input schema at every depth. Read from the source document, not through the catalog.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  buildCatalog,
  type Catalog,
  fsSourceReader,
  type LoadResult,
  loadSpecsDirectory,
  type Tool,
} from '../../src/catalog/index.js'
import { isRecord } from '../../src/util/is-record.js'
import { resolvePointer } from '../../src/util/json-pointer.js'
import { loadFixture, realWorldFiles } from '../helpers/corpus.js'
import { fromRoot } from '../helpers/paths.js'

type Json = Record<string, unknown>

const corpus = realWorldFiles()

/** OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

function deref(document: unknown, node: unknown): Json {
  const seen = new Set<string>()
  let at = node
  while (isRecord(at) && typeof at.$ref === 'string' && !seen.has(at.$ref)) {
    seen.add(at.$ref)
    at = resolvePointer(document, at.$ref)
  }
  return isRecord(at) ? at : {}
}

/** The operation's parameters as the source declares them: the path item's, overridden by the operation's. */
function declaredParameters(document: unknown, tool: Tool): Json[] {
  const itemPointer = tool.pointer.slice(0, tool.pointer.lastIndexOf('/'))
  const item = deref(document, resolvePointer(document, `#${itemPointer}`))
  const operation = deref(document, resolvePointer(document, `#${tool.pointer}`))
  const byKey = new Map<string, Json>()
  for (const list of [item.parameters, operation.parameters])
    for (const raw of Array.isArray(list) ? list : []) {
      const parameter = deref(document, raw)
      if (typeof parameter.name === 'string' && typeof parameter.in === 'string')
        byKey.set(`${parameter.in}:${parameter.name}`, parameter)
    }
  return [...byKey.values()].filter(
    (p) => !(p.in === 'header' && IGNORED_HEADERS.has(String(p.name).toLowerCase())),
  )
}

function unreachableParameters(tool: Tool, document: unknown): string[] {
  const targets = Object.values(tool.binding.arguments)
  return declaredParameters(document, tool)
    .filter(
      (p) => !targets.some((target) => target.in === p.in && 'name' in target && target.name === p.name),
    )
    .map((p) => `${tool.id}: ${String(p.in)} parameter ${JSON.stringify(p.name)} is no argument`)
}

const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const

/** Names the node declares: its properties and those of its combinators' members, one level down. */
function declared(node: Json): Set<string> {
  const names = new Set(Object.keys(isRecord(node.properties) ? node.properties : {}))
  for (const key of COMBINATORS)
    for (const member of Array.isArray(node[key]) ? node[key] : [])
      if (isRecord(member) && isRecord(member.properties))
        for (const name of Object.keys(member.properties)) names.add(name)
  return names
}

/** An object that admits keys it does not name (no `properties`, or a map of further keys). */
function isOpenMap(node: Json): boolean {
  if (isRecord(node.patternProperties)) return true
  if (isRecord(node.additionalProperties)) return true
  return !isRecord(node.properties) && node.additionalProperties !== false
}

/**
 * Every `required` name is declared by the node, one of its combinators' members, or — for a
 * member — the object it belongs to; or the node is an open map. `not` and `if` hold conditions,
 * not obligations, and are not entered.
 */
function requiredOutsideProperties(schema: Json, tool: string): string[] {
  const found: string[] = []
  const visit = (node: unknown, path: string, parent: Set<string>) => {
    if (!isRecord(node)) return
    if (Array.isArray(node.required) && !isOpenMap(node)) {
      const names = new Set([...declared(node), ...parent])
      for (const name of node.required)
        if (!names.has(name))
          found.push(`${tool}${path}/required: ${JSON.stringify(name)} is declared nowhere`)
    }
    const own = declared(node)
    for (const key of COMBINATORS)
      for (const [i, member] of (Array.isArray(node[key]) ? node[key] : []).entries())
        visit(member, `${path}/${key}/${i}`, new Set([...own, ...parent]))
    for (const key of ['properties', '$defs', 'patternProperties', 'dependentSchemas'])
      for (const [name, child] of Object.entries(isRecord(node[key]) ? node[key] : {}))
        visit(child, `${path}/${key}/${name}`, new Set())
    for (const key of ['items', 'additionalProperties', 'contains', 'then', 'else'])
      visit(node[key], `${path}/${key}`, new Set())
    for (const [i, child] of (Array.isArray(node.prefixItems) ? node.prefixItems : []).entries())
      visit(child, `${path}/prefixItems/${i}`, new Set())
  }
  visit(schema, '', new Set())
  return found
}

/** Checks every tool; returns how many declared parameters were looked for. */
function check(catalog: Catalog, loaded: LoadResult): number {
  const documents = new Map(loaded.sources.map((source) => [source.sourceId, source.document]))
  const broken: string[] = []
  let parameters = 0
  for (const tool of catalog.tools) {
    if (tool.remote) continue
    const document = documents.get(tool.sourceId)
    parameters += declaredParameters(document, tool).length
    broken.push(...unreachableParameters(tool, document))
    broken.push(...requiredOutsideProperties(tool.inputSchema, tool.id))
  }
  assert.deepEqual(broken.slice(0, 20), [], `${broken.length} broken`)
  return parameters
}

describe('every declared parameter is an argument; required names only declared properties', () => {
  test('the checks find what they look for', () => {
    const closed = {
      type: 'object',
      properties: { a: {} },
      required: ['a', 'b'],
      additionalProperties: false,
    }
    assert.deepEqual(requiredOutsideProperties(closed, 't'), ['t/required: "b" is declared nowhere'])
    const nested = {
      type: 'object',
      properties: { x: { type: 'object', properties: { a: {} }, required: ['z'] } },
    }
    assert.deepEqual(requiredOutsideProperties(nested, 't'), [
      't/properties/x/required: "z" is declared nowhere',
    ])
    const idiom = {
      type: 'object',
      properties: { a: {}, b: {} },
      oneOf: [{ required: ['a'] }, { required: ['b'] }],
    }
    assert.deepEqual(requiredOutsideProperties(idiom, 't'), [])
    const document = {
      paths: {
        '/x/{id}': {
          parameters: [{ name: 'id', in: 'path' }],
          get: { parameters: [{ name: 'q<', in: 'query' }] },
        },
      },
    }
    const tool = {
      id: 's:get',
      pointer: '/paths/~1x~1{id}/get',
      binding: { arguments: { id: { in: 'path', name: 'id' } } },
    } as unknown as Tool
    assert.deepEqual(unreachableParameters(tool, document), ['s:get: query parameter "q<" is no argument'])
  })

  test('the shipped specs', async () => {
    const loaded = await loadSpecsDirectory(fromRoot('specs'), fsSourceReader)
    assert.ok(check(buildCatalog(loaded), loaded) > 0)
  })

  for (const file of corpus) {
    test(file, async (t) => {
      const loaded = await loadFixture(file)
      const parameters = check(buildCatalog(loaded), loaded)
      t.diagnostic(`${parameters} declared parameters, each an argument`)
    })
  }
})
