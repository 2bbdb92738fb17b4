// Issue 17 class 7: what a tool's advertised input schema accepts, the executor accepts, unchanged.
// The validator used to coerce (Ajv coerceTypes), which turned a string into the array branch of a
// oneOf too, so OpenAI's create_embedding refused {"input": "some text"}. And class 4's last line:
// a schema no validator can compile refuses every call, never serves it unchecked.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import { generate } from 'json-schema-faker'
import {
  buildCatalog,
  fsSourceReader,
  type JsonSchema,
  loadSpecsDirectory,
  type SourceReader,
  type Tool,
} from '../../src/catalog/index.js'
import { COMPILED_SCHEMA_NODES, createArgumentValidator } from '../../src/executor/validate-arguments.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, toolById } from '../helpers/memory-catalog.js'
import { fromRoot } from '../helpers/paths.js'
import { startUpstream } from '../helpers/upstreams.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/** The judge: the executor's Ajv configuration without any coercion — what the schema itself accepts. */
const reference = () => addFormats(new Ajv2020({ strict: false, logger: false }))

let ids = 0
/** A bare tool around an input schema (the validator reads only its id and schema). */
function toolOf(inputSchema: JsonSchema): Tool {
  return { id: `fidelity:${ids++}`, inputSchema } as unknown as Tool
}

/** The same schema past COMPILED_SCHEMA_NODES, so the interpreting validator serves it. */
function interpretedOf(inputSchema: JsonSchema): JsonSchema {
  const properties = { ...(inputSchema.properties as object) } as Record<string, unknown>
  for (let i = 0; i < COMPILED_SCHEMA_NODES; i++) properties[`pad${i}`] = { type: 'string' }
  return { ...inputSchema, properties }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

/** Asserts the executor's validator accepts `args` as they are and leaves them untouched. */
function assertAcceptedUnchanged(
  validator: ReturnType<typeof createArgumentValidator>,
  tool: Tool,
  args: Record<string, unknown>,
  label: string,
) {
  const before = structuredClone(args)
  const checked = validator.check(tool, deepFreeze(args))
  assert.ok(
    checked.ok,
    `${label}: refused ${JSON.stringify(checked.ok ? [] : checked.violations).slice(0, 400)}`,
  )
  assert.deepEqual(checked.arguments, before, `${label}: accepted but changed`)
  assert.deepEqual(args, before, `${label}: the caller's arguments were mutated`)
}

const EMBEDDING_INPUT = {
  description: 'Input text to embed, encoded as a string or array of tokens.',
  oneOf: [
    { type: 'string', default: '' },
    { type: 'array', minItems: 1, items: { type: 'string', default: '' } },
    { type: 'array', minItems: 1, items: { type: 'integer' } },
    { type: 'array', minItems: 1, items: { type: 'array', minItems: 1, items: { type: 'integer' } } },
  ],
}

describe('the validator accepts what the advertised schema accepts', () => {
  test("OpenAI's create_embedding: {input: 'some text'} is accepted as sent (was: must match exactly one schema in oneOf)", async () => {
    const spec = openapi({
      '/embeddings': {
        post: {
          operationId: 'create_embedding',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['input', 'model'],
                  properties: {
                    input: EMBEDDING_INPUT,
                    model: { type: 'string' },
                    dimensions: { type: 'integer' },
                  },
                },
              },
            },
          },
          responses: ok,
        },
      },
    })
    const tool = toolById(await catalogOf({ 'openai.yaml': spec }), 'openai:create_embedding')
    const validator = createArgumentValidator()
    for (const schema of [tool.inputSchema, interpretedOf(tool.inputSchema)]) {
      const each = toolOf(schema)
      for (const input of ['some text', ['a', 'b'], [1, 2], [[1], [2, 3]]])
        assertAcceptedUnchanged(
          validator,
          each,
          { input, model: 'text-embedding-3-small' },
          JSON.stringify(input),
        )
      // A slip elsewhere is still repaired, and the union value is still left as it was.
      assert.deepEqual(validator.check(each, { input: 'some text', model: 'm', dimensions: '256' }), {
        ok: true,
        arguments: { input: 'some text', model: 'm', dimensions: 256 },
      })
    }
  })

  test('a slip no union branch admits is repaired for the branch it fits: "3" for integer | boolean', () => {
    const validator = createArgumentValidator()
    const schema = {
      type: 'object',
      properties: {
        n: { oneOf: [{ type: 'integer' }, { type: 'boolean' }] },
        list: { type: 'array', items: { type: 'integer' } },
      },
      additionalProperties: false,
    }
    for (const each of [toolOf(schema), toolOf(interpretedOf(schema))]) {
      assert.deepEqual(validator.check(each, { n: '3', list: '7' }), {
        ok: true,
        arguments: { n: 3, list: [7] },
      })
      assert.equal(validator.check(each, { n: 'three' }).ok, false)
    }
  })

  test('generated union schemas: every value a non-coercing Ajv accepts passes unchanged, compiled and interpreted alike', () => {
    const leaf = fc.constantFrom<Record<string, unknown>>(
      { type: 'string' },
      { type: 'string', minLength: 1 },
      { type: 'integer' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: { type: 'string' } },
      { type: 'array', items: { type: 'integer' } },
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
      { type: ['string', 'null'] },
      { type: ['integer', 'null'] },
      { type: ['array', 'null'], items: { type: 'string' } },
      { enum: ['a', 'b', null] },
    )
    const union = fc
      .tuple(
        fc.constantFrom('oneOf', 'anyOf'),
        fc.uniqueArray(leaf, { minLength: 1, maxLength: 3, selector: (s) => JSON.stringify(s) }),
      )
      .map(([keyword, branches]) => ({ [keyword]: branches }))
    const property = fc.oneof(
      union,
      leaf,
      union.map((u) => ({ type: 'array', items: u })),
    )
    const scalar = fc.oneof(
      fc.constantFrom('3', '3.5', 'true', 'false', '', 'x', '[1]', '["a"]', '{"a":"b"}', 'null'),
      fc.integer({ min: -5, max: 5 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 4 }),
    )
    const value = fc.oneof(
      scalar,
      fc.array(scalar, { maxLength: 3 }),
      fc.array(fc.array(scalar, { maxLength: 2 }), { maxLength: 2 }),
      fc.record({ a: scalar }, { requiredKeys: [] }),
      fc.array(fc.record({ a: scalar }), { maxLength: 2 }),
    )
    const judge = reference()
    const validator = createArgumentValidator()
    let accepted = 0
    const cases = property.chain((schema) =>
      fc.tuple(
        fc.constant(schema),
        fc.array(fc.oneof(valueFor(schema), value), { minLength: 1, maxLength: 6 }),
      ),
    )
    fc.assert(
      fc.property(cases, ([schema, values]) => {
        const inputSchema = { type: 'object', properties: { v: schema }, additionalProperties: false }
        const valid = judge.compile(inputSchema)
        const compiled = toolOf(inputSchema)
        const interpreted = toolOf(interpretedOf(inputSchema))
        for (const v of values) {
          const args = { v }
          const label = `${JSON.stringify(schema)} ← ${JSON.stringify(v)}`
          if (valid(structuredClone(args))) {
            accepted++
            assertAcceptedUnchanged(validator, compiled, structuredClone(args), `compiled ${label}`)
            assertAcceptedUnchanged(validator, interpreted, structuredClone(args), `interpreted ${label}`)
          } else {
            const a = validator.check(compiled, structuredClone(args))
            const b = validator.check(interpreted, structuredClone(args))
            assert.equal(b.ok, a.ok, `both validators agree on ${label}`)
            if (a.ok && b.ok) assert.deepEqual(b.arguments, a.arguments, `both repair alike ${label}`)
          }
        }
      }),
      { numRuns: 300, seed: 17 },
    )
    assert.ok(accepted > 500, `only ${accepted} generated values were valid: the property tested too little`)
  })
})

/** Values of the kinds a schema names (strings that look like numbers and JSON among them), valid or not. */
function valueFor(schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  const branches = (schema.oneOf ?? schema.anyOf) as Record<string, unknown>[] | undefined
  if (branches) return fc.oneof(...branches.map(valueFor))
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as string[]
  return fc.oneof(...types.map((type) => valueOfType(type, schema)))
}

function valueOfType(type: string, schema: Record<string, unknown>): fc.Arbitrary<unknown> {
  if (type === 'string')
    return fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('3', 'true', '[1]', '{"a":"b"}', 'null'))
  if (type === 'integer') return fc.integer({ min: -5, max: 5 })
  if (type === 'number') return fc.double({ noNaN: true, noDefaultInfinity: true })
  if (type === 'boolean') return fc.boolean()
  if (type === 'array') return fc.array(valueFor(schema.items as Record<string, unknown>), { maxLength: 3 })
  if (type === 'object') {
    const properties = schema.properties as Record<string, Record<string, unknown>>
    return fc.record(
      { a: valueFor(properties.a!) },
      { requiredKeys: (schema.required as 'a'[] | undefined) ?? [] },
    )
  }
  return fc.constant(null)
}

/** Formats json-schema-faker does not know, as the real-world specs use them. */
const FORMATS = {
  url: () => 'https://example.com/hook',
  endpoint: () => '+15550100',
  'http-method': () => 'POST',
}
const SEEDS = [1, 2, 3]

/** json-schema-faker fills oneOf badly (Planet | Satellite matches both); even seeds pick one branch. */
function pickBranches(schema: unknown, seed: number): unknown {
  if (schema === null || typeof schema !== 'object') return schema
  if (Array.isArray(schema)) return schema.map((item) => pickBranches(item, seed))
  const node = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, pickBranches(v, seed)]))
  const branches = (node.oneOf ?? node.anyOf) as unknown[] | undefined
  if (!Array.isArray(branches) || branches.length === 0) return node
  const { oneOf: _, anyOf: __, ...rest } = node
  return { ...rest, allOf: [branches[seed % branches.length]] }
}

/** For each tool: arguments generated from its advertised schema; those the schema accepts must pass unchanged. */
async function checkCorpus(dir: string, reader: SourceReader) {
  const catalog = buildCatalog(await loadSpecsDirectory(dir, reader))
  const judge = reference()
  const validator = createArgumentValidator()
  let samples = 0
  const unsampled: string[] = []
  for (const tool of catalog.tools) {
    const valid = judge.compile(tool.inputSchema)
    let sampled = false
    for (const seed of SEEDS) {
      const schema = seed % 2 === 0 ? pickBranches(tool.inputSchema, seed) : structuredClone(tool.inputSchema)
      const args = (await generate(schema as never, {
        seed,
        alwaysFakeOptionals: seed === 1,
        optionalsProbability: 0.5,
        formats: FORMATS,
        maxItems: 2,
        refDepthMax: 2,
        maxDepth: 5,
      })) as Record<string, unknown>
      if (!valid(structuredClone(args))) continue
      assertAcceptedUnchanged(validator, tool, args, `${tool.id} seed ${seed}`)
      sampled = true
      samples++
    }
    if (!sampled) unsampled.push(tool.id)
  }
  return { tools: catalog.tools.length, samples, unsampled }
}

describe('generated arguments for every tool of the corpus are accepted as sent', () => {
  test('the shipped specs', async () => {
    const result = await checkCorpus(fromRoot('specs'), fsSourceReader)
    assert.deepEqual(result.unsampled, [])
    assert.ok(result.samples >= result.tools)
  })

  const dir = fromRoot('test', 'fixtures', 'real-world')
  const corpus = JSON.parse(readFileSync(`${dir}/index.json`, 'utf8')) as { file: string }[]
  for (const { file } of corpus) {
    test(file, async (t) => {
      const result = await checkCorpus(dir, {
        listFiles: async () => [file],
        readText: fsSourceReader.readText,
      })
      t.diagnostic(
        `${result.samples} samples over ${result.tools} tools; unsampled: ${result.unsampled.length}`,
      )
      // json-schema-faker cannot always produce a valid value (ShipEngine's overlapping unions); almost always it can.
      assert.ok(
        result.unsampled.length <= result.tools * 0.05,
        `unsampled: ${result.unsampled.slice(0, 10).join(', ')}`,
      )
    })
  }
})

describe('a schema no validator can compile refuses every call', () => {
  const broken = {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    // Past the catalog's repairs (a hand-made tool): a pattern no engine reads, and a keyword of the wrong shape.
    properties: { id: { type: 'string', pattern: '(?i)^{x' }, n: { type: 'integer', minimum: 'low' } },
  }
  for (const [kind, schema] of [
    ['compiled', broken],
    ['interpreted', interpretedOf(broken as JsonSchema)],
  ] as const) {
    test(`${kind}: a call missing its required argument, or complete, is a 400 and the upstream sees nothing`, async (t) => {
      const upstream = await startUpstream(t)
      const spec = openapi({
        '/things': {
          post: {
            operationId: 'make',
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            responses: ok,
          },
        },
      })
      const catalog = await catalogOf({ 's.yaml': spec })
      const tool = { ...toolById(catalog, 's:make'), inputSchema: schema as JsonSchema }
      const { call } = executorFor(
        t,
        { ...catalog, tools: [tool] },
        { services: { s: { upstream: upstream.url } } },
      )
      for (const args of [{}, { id: 'x' }, { id: 'x', n: 3 }]) {
        const refused = await call('s:make', args)
        assert.equal(refused.status, 400, JSON.stringify(refused))
        assert.match(JSON.stringify(refused), /cannot be checked: the tool's input schema is invalid/)
      }
      assert.equal(upstream.received.length, 0)
    })
  }
})
