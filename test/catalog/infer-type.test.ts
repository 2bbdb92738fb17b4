// Issue 17 class 3: a schema without `type` gets the type it implies, once, in the catalog
// (src/catalog/infer-type.ts); where nothing implies one, the any-value form every target takes.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import type { JsonSchema } from '../../src/catalog/index.js'
import {
  ANY_VALUE_TYPES,
  anyValueSchema,
  inferType,
  isAnyValueSchema,
  typedOrAnyValue,
  withInferredType,
} from '../../src/catalog/infer-type.js'
import { catalogOf, ok, openapi, toolById } from '../helpers/memory-catalog.js'

const ajv = new Ajv2020({ strict: false, validateFormats: false })

function jsonType(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

/** JSON values, without the keys Ajv's deep equality (fast-deep-equal) trips over. */
const jsonValue = (maxDepth: number) =>
  fc
    .jsonValue({ maxDepth })
    .filter((v) => !/"(valueOf|toString|__proto__|constructor)"/.test(JSON.stringify(v)))

/** Whether a value is of one of the types (an integer is a number). */
function isOfTypes(value: unknown, type: string | string[]): boolean {
  const types = [type].flat()
  const own = jsonType(value)
  return types.includes(own) || (own === 'integer' && types.includes('number'))
}

describe('inferType: each keyword family', () => {
  const table: [string, JsonSchema, string | string[] | undefined][] = [
    ['enum of strings', { enum: ['a', 'b'] }, 'string'],
    ['enum of integers', { enum: [1, 2] }, 'integer'],
    ['enum of numbers', { enum: [1, 2.5] }, 'number'],
    ['enum with null', { enum: ['a', null] }, ['string', 'null']],
    ['enum of mixed values', { enum: [true, 'x', { a: 1 }, [1]] }, ['string', 'boolean', 'object', 'array']],
    ['const', { const: false }, 'boolean'],
    ['properties', { properties: { a: {} } }, 'object'],
    ['required', { required: ['a'] }, 'object'],
    ['additionalProperties', { additionalProperties: { type: 'string' } }, 'object'],
    ['patternProperties', { patternProperties: { '^x': {} } }, 'object'],
    ['items', { items: { type: 'string' } }, 'array'],
    ['prefixItems', { prefixItems: [{ type: 'string' }] }, 'array'],
    ['minItems', { minItems: 1 }, 'array'],
    ['minimum', { minimum: 0 }, 'number'],
    ['multipleOf', { multipleOf: 2 }, 'number'],
    ['pattern', { pattern: '^a' }, 'string'],
    ['maxLength', { maxLength: 3 }, 'string'],
    ['string format', { format: 'date-time' }, 'string'],
    ['binary format', { format: 'binary' }, 'string'],
    ['int64 format', { format: 'int64' }, 'integer'],
    ['double format', { format: 'double' }, 'number'],
    ['keywords of two types', { minimum: 1, maxLength: 3 }, ['string', 'number']],
    ['allOf members', { allOf: [{ type: ['string', 'null'] }, { type: 'string' }] }, 'string'],
    ['union of typed branches', { oneOf: [{ type: 'integer' }, { type: 'number' }] }, 'number'],
    ['union with an untyped branch', { anyOf: [{ type: 'string' }, {}] }, undefined],
    ['a $ref (its definition decides)', { $ref: '#/$defs/X' }, undefined],
    ['annotations only', { description: 'x', default: 'form' }, undefined],
    ['nothing at all', {}, undefined],
    ['a written type wins', { type: 'string', properties: {} }, 'string'],
  ]
  for (const [name, schema, expected] of table)
    test(name, () => assert.deepEqual(inferType(schema), expected))

  test('a union branch that is a $ref takes its definition’s type when one is known', () => {
    const union = { oneOf: [{ $ref: '#/$defs/A' }, { type: 'object' }] }
    assert.equal(inferType(union), undefined)
    assert.equal(
      inferType(union, () => 'object'),
      'object',
    )
  })
})

describe('the any-value form and property positions', () => {
  test('typedOrAnyValue: implied types written out, the any-value form where nothing implies one', () => {
    assert.deepEqual(typedOrAnyValue({ enum: ['a'] }), { type: 'string', enum: ['a'] })
    assert.deepEqual(typedOrAnyValue({ description: 'Free.' }), {
      type: [...ANY_VALUE_TYPES],
      description: 'Free.',
      items: {},
    })
    assert.deepEqual(typedOrAnyValue({ $ref: '#/$defs/A' }), { $ref: '#/$defs/A' })
    const union = { anyOf: [{ $ref: '#/$defs/A' }, { type: 'string' }] }
    assert.deepEqual(typedOrAnyValue(union), union, 'a union whose branch types are unknown stays a union')
  })

  test('a union of arrays keeps its type unwritten: the items live in the branches', () => {
    const union = {
      anyOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'string', enum: [''] },
      ],
    }
    assert.deepEqual(withInferredType(union), union)
  })

  test('the any-value form is valid JSON Schema, has items, and takes every JSON value but null', () => {
    const schema = anyValueSchema()
    assert.ok(isAnyValueSchema(schema))
    assert.ok(ajv.validateSchema(schema))
    const validate = ajv.compile(schema)
    fc.assert(
      fc.property(fc.jsonValue(), (value) => assert.equal(validate(value), value !== null)),
      { numRuns: 300 },
    )
  })

  // Inference narrows a schema to the types its keywords are about and nothing else: for values of
  // those types the verdict is unchanged; an enum or const keeps exactly its values.
  test('fast-check: for values of the inferred types, the typed schema judges as the untyped one', () => {
    const keywords = fc.record(
      {
        enum: fc.array(jsonValue(1), { minLength: 1, maxLength: 4 }),
        minimum: fc.integer({ min: -5, max: 5 }),
        maxLength: fc.nat(6),
        pattern: fc.constantFrom('^a', 'b$', '.'),
        format: fc.constantFrom('date-time', 'int32', 'double', 'uuid'),
        minItems: fc.nat(2),
        items: fc.constantFrom({ type: 'string' }, { type: 'integer' }),
        properties: fc.constant({ a: { type: 'string' } }),
        required: fc.constant(['a']),
        description: fc.string(),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(keywords, fc.array(jsonValue(2), { maxLength: 10 }), (schema, values) => {
        const type = inferType(schema)
        if (type === undefined) return
        const before = ajv.compile(schema)
        const after = ajv.compile(withInferredType(schema))
        const samples = [...values, ...((schema.enum as unknown[]) ?? [])]
        for (const value of samples) {
          if (isOfTypes(value, type))
            assert.equal(after(value), before(value), JSON.stringify({ schema, value }))
          else assert.equal(after(value), false)
        }
        // Every value an enum lists is still accepted (when the other keywords accept it).
        for (const value of (schema.enum as unknown[]) ?? []) if (before(value)) assert.ok(after(value))
      }),
      { numRuns: 500 },
    )
  })
})

describe('inference runs once, in the catalog', () => {
  test('properties without a type reach the input schema typed, at any depth, in $defs, items and branches', async () => {
    const catalog = await catalogOf({
      't.yaml': openapi(
        {
          '/x': {
            post: {
              operationId: 'x',
              parameters: [{ name: 'q', in: 'query', schema: { enum: [1, 2] } }],
              requestBody: {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        status: { enum: ['on', 'off'] },
                        meta: { properties: { when: { format: 'date-time' } } },
                        list: { items: { minimum: 0 } },
                        free: { description: 'Anything.' },
                        either: { oneOf: [{ properties: { a: { type: 'string' } } }, { pattern: '^x' }] },
                        tree: { $ref: '#/components/schemas/Tree' },
                      },
                    },
                  },
                },
              },
              responses: ok,
            },
          },
        },
        {
          components: {
            schemas: {
              Tree: { properties: { leaf: {}, kids: { items: { $ref: '#/components/schemas/Tree' } } } },
            },
          },
        },
      ),
    })
    const schema = toolById(catalog, 't:x').inputSchema
    const p = schema.properties as Record<string, Record<string, unknown>>
    assert.equal(p.q!.type, 'integer')
    assert.equal(p.status!.type, 'string')
    assert.equal(p.meta!.type, 'object')
    assert.equal((p.meta!.properties as Record<string, JsonSchema>).when!.type, 'string')
    assert.equal(p.list!.type, 'array')
    assert.equal((p.list!.items as JsonSchema).type, 'number')
    assert.ok(isAnyValueSchema(p.free))
    assert.deepEqual(p.either!.type, ['string', 'object'])
    assert.deepEqual(
      (p.either!.oneOf as JsonSchema[]).map((branch) => branch.type),
      ['object', 'string'],
    )
    const tree = (schema.$defs as Record<string, Record<string, unknown>>).Tree!
    assert.equal(tree.type, 'object')
    const treeProperties = tree.properties as Record<string, JsonSchema>
    assert.ok(isAnyValueSchema(treeProperties.leaf))
    assert.equal(treeProperties.kids!.type, 'array')
  })
})

describe('withInferredType: combinators and items read by keyed loads (issue 20 row 4)', () => {
  // The reading the keyed loads replaced, kept here as the reference.
  const reference = (schema: JsonSchema): JsonSchema => {
    if (schema.type !== undefined) return schema
    const type = inferType(schema)
    if (type === undefined) return schema
    const combined = schema.allOf !== undefined || schema.oneOf !== undefined || schema.anyOf !== undefined
    const withoutItems = schema.items === undefined && schema.prefixItems === undefined
    if (combined && withoutItems && [type].flat().includes('array')) return schema
    return { type, ...schema }
  }
  const member = fc.oneof(
    fc.constant({ type: 'array' }),
    fc.constant({ minItems: 1 }),
    fc.constant({ type: 'string' }),
    fc.constant({ properties: {} }),
  )
  const schema = fc.record(
    {
      allOf: fc.array(member, { minLength: 1, maxLength: 2 }),
      oneOf: fc.array(member, { minLength: 1, maxLength: 2 }),
      anyOf: fc.array(member, { minLength: 1, maxLength: 2 }),
      items: fc.constant({}),
      prefixItems: fc.constant([{}]),
      minItems: fc.constant(0),
      description: fc.string(),
    },
    { requiredKeys: [] },
  )

  test('gives what the named reads gave, for every mix of keywords', () => {
    fc.assert(
      fc.property(schema, (s) => {
        assert.deepEqual(withInferredType(s), reference(s))
      }),
    )
  })

  test('an array union without items keeps its type unwritten; with items it is written', () => {
    const union = { oneOf: [{ type: 'array' }, { minItems: 1 }] }
    assert.equal(withInferredType(union), union)
    assert.deepEqual(withInferredType({ ...union, items: {} }), { type: 'array', ...union, items: {} })
  })
})
