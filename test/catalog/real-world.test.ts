// Real public API descriptions (test/fixtures/real-world, sources and licences in SOURCES.md):
// each builds, every GET/POST/PUT/PATCH/DELETE operation becomes a tool, and every tool is
// well-formed: a valid name, an object input schema that compiles, safe keys, a complete binding.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { templateVariables } from '../../src/catalog/derive-parameters.js'
import {
  buildCatalog,
  fsSourceReader,
  loadSpecsDirectory,
  type SourceReader,
  type Tool,
} from '../../src/catalog/index.js'
import { ARGUMENT_KEY_PATTERN } from '../../src/catalog/input-schema.js'
import { WIRE_NAME_PATTERN } from '../../src/catalog/wire-name.js'
import { fromRoot } from '../helpers/paths.js'

interface CorpusEntry {
  file: string
  name: string
  format: string
  operations: number
  withoutOperationId: number
  traits: string[]
}

const DIR = fromRoot('test', 'fixtures', 'real-world')
const corpus: CorpusEntry[] = JSON.parse(readFileSync(`${DIR}/index.json`, 'utf8'))

/** Lists one spec file of the corpus directory, so each is built alone. */
function onlyFile(file: string): SourceReader {
  return { listFiles: async () => [file], readText: fsSourceReader.readText }
}

/** Walks a schema and calls visit on every subschema. */
function eachSchema(schema: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (schema === null || typeof schema !== 'object') return
  if (Array.isArray(schema)) {
    for (const item of schema) eachSchema(item, visit)
    return
  }
  const node = schema as Record<string, unknown>
  visit(node)
  for (const [key, value] of Object.entries(node)) {
    if (['enum', 'const', 'default', 'examples'].includes(key)) continue
    if (key === 'properties' || key === '$defs' || key === 'patternProperties') {
      for (const child of Object.values(value as object)) eachSchema(child, visit)
    } else if (typeof value === 'object') eachSchema(value, visit)
  }
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/**
 * Issue 16: every output schema compiles (they are small: limits.outputSchemaNodes) and has an
 * object root, as MCP requires; a tool without one says why.
 */
function checkOutput(tool: Tool, ajv: Ajv2020): void {
  const output = tool.structuredOutput
  if ('reason' in output) {
    assert.ok(output.reason.length > 0, `${tool.id}: a reason`)
    return
  }
  assert.equal(output.schema.type, 'object', `${tool.id}: output root is an object`)
  assert.match(output.status, /^2(\d\d|XX)$/, tool.id)
  ajv.compile(output.schema)
}

/**
 * Every tool's input schema compiles as the executor compiles it (Ajv 2020, strict: false,
 * ajv-formats): a schema that does not is refused on every call (issue 17 class 4). All of
 * Kubernetes' 1,002 tools compile in about 10 s.
 */
function checkTool(tool: Tool, ajv: Ajv2020): void {
  assert.match(tool.wireName, WIRE_NAME_PATTERN, tool.id)
  const schema = tool.inputSchema
  assert.equal(schema.type, 'object', tool.id)
  const properties = schema.properties as Record<string, unknown>
  for (const key of Object.keys(properties)) assert.match(key, ARGUMENT_KEY_PATTERN, `${tool.id}: ${key}`)
  assert.deepEqual(Object.keys(tool.binding.arguments).sort(), Object.keys(properties).sort(), tool.id)
  for (const variable of templateVariables(tool.path)) {
    assert.ok(
      Object.values(tool.binding.arguments).some(
        (target) => target.in === 'path' && 'name' in target && target.name === variable,
      ),
      `${tool.id}: path variable ${variable} is bound`,
    )
  }
  const defs = (schema.$defs ?? {}) as Record<string, unknown>
  eachSchema(schema, (node) => {
    if (typeof node.$ref === 'string') {
      assert.match(node.$ref, /^#\/\$defs\//, `${tool.id}: only $defs references remain`)
      assert.ok(node.$ref.slice(8) in defs, `${tool.id}: ${node.$ref} is defined`)
    }
    const type = node.type
    if (type === 'array' || (Array.isArray(type) && type.includes('array'))) {
      assert.ok('items' in node || 'prefixItems' in node, `${tool.id}: arrays have items`)
    }
  })
  assert.ok(ajv.validateSchema(schema), `${tool.id}: ${ajv.errorsText(ajv.errors)}`)
  assert.doesNotThrow(() => ajv.compile(schema), tool.id)
}

describe('real-world API descriptions', () => {
  test('the corpus is varied: ≥ 10 documents across Swagger 2.0, OpenAPI 3.0 and 3.1, with the hard shapes', () => {
    assert.ok(corpus.length >= 10)
    for (const format of ['swagger-2.0', 'openapi-3.0', 'openapi-3.1'])
      assert.ok(
        corpus.some((e) => e.format === format),
        format,
      )
    for (const trait of [
      'large',
      'circular',
      'polymorphic',
      'no-operation-ids',
      'form-urlencoded',
      'webhooks',
      'multipart',
    ]) {
      assert.ok(
        corpus.some((e) => e.traits.includes(trait)),
        trait,
      )
    }
  })

  let total = 0
  for (const entry of corpus) {
    test(`${entry.file} (${entry.format}, ${entry.operations} operations): every operation is a valid tool`, async () => {
      const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false }))
      const outputAjv = addFormats(new Ajv2020({ strict: false }))
      const loaded = await loadSpecsDirectory(DIR, onlyFile(entry.file))
      const catalog = buildCatalog(loaded)
      const errors = catalog.problems.filter((p) => p.severity === 'error')
      assert.deepEqual(errors, [], 'no source-level errors')
      assert.equal(catalog.sources[0]?.status, 'ok')
      assert.equal(
        catalog.tools.length,
        entry.operations,
        'every GET/POST/PUT/PATCH/DELETE operation is a tool',
      )
      assert.equal(catalog.tools.filter((t) => t.operationId === undefined).length, entry.withoutOperationId)
      assert.equal(
        new Set(catalog.tools.map((t) => t.wireName)).size,
        catalog.tools.length,
        'wire names are unique',
      )
      for (const tool of catalog.tools) {
        checkTool(tool, ajv)
        checkOutput(tool, outputAjv)
      }
      assert.ok(
        catalog.tools.some((tool) => 'schema' in tool.structuredOutput),
        'some tools have an output schema',
      )
      total += catalog.tools.length
    })
  }

  test('all of them together: one catalog, every tool present', async () => {
    const expected = corpus.reduce((sum, entry) => sum + entry.operations, 0)
    assert.equal(total, expected, 'the per-file tests above built every tool')
    const loaded = await loadSpecsDirectory(DIR, {
      listFiles: async () => corpus.map((e) => e.file).filter((f) => f !== 'petstore-v2.yaml'),
      readText: fsSourceReader.readText,
    })
    const catalog = buildCatalog(loaded)
    const petstoreYaml = corpus.find((e) => e.file === 'petstore-v2.yaml')?.operations ?? 0
    assert.equal(catalog.tools.length, expected - petstoreYaml)
    assert.equal(new Set(catalog.tools.map((t) => t.wireName)).size, catalog.tools.length)
  })
})
