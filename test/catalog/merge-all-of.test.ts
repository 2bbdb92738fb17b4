// Issue 17 class 2: allOf merged into one schema (src/catalog/merge-all-of.ts), and composed request
// bodies flattened into arguments through the whole catalog.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import type { JsonSchema } from '../../src/catalog/index.js'
import { mergeAllOf, type ResolveRef } from '../../src/catalog/merge-all-of.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'

const defs: Record<string, JsonSchema> = {
  Base: {
    type: 'object',
    properties: { id: { type: 'string' }, name: { type: 'string', maxLength: 50 } },
    required: ['name'],
  },
  Node: {
    type: 'object',
    properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
  },
  Loop: { allOf: [{ $ref: '#/$defs/Pool' }] },
  Pool: { allOf: [{ $ref: '#/$defs/Loop' }] },
  Ref: { $ref: '#/$defs/Base' },
}
const resolve: ResolveRef = (ref) => defs[ref.replace('#/$defs/', '')]
const merge = (schema: JsonSchema) => mergeAllOf(schema, resolve)?.schema

describe('mergeAllOf', () => {
  test('objects: properties and required united, $defs references opened (a chain of them too)', () => {
    const merged = merge({
      description: 'A custom image.',
      allOf: [
        { $ref: '#/$defs/Ref' },
        { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
      ],
    })
    assert.deepEqual(merged, {
      description: 'A custom image.',
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string', maxLength: 50 },
        url: { type: 'string' },
      },
      required: ['name', 'url'],
    })
  })

  test('a property two members define differently: both constraints, merged; unmergeable ones kept as allOf of both', () => {
    const merged = merge({
      allOf: [
        { properties: { name: { type: 'string', maxLength: 50 }, code: { type: 'string', pattern: '^a' } } },
        { properties: { name: { type: 'string', minLength: 1 }, code: { pattern: '^b' } } },
      ],
    })
    assert.deepEqual(merged?.properties, {
      name: { type: 'string', maxLength: 50, minLength: 1 },
      code: { type: 'string', allOf: [{ type: 'string', pattern: '^a' }, { pattern: '^b' }] },
    })
    // Declared types only: the catalog infers `object` after merging (infer-type.ts).
    assert.equal(merged?.type, undefined)
  })

  test('nested allOf members are flattened; the schema’s own annotations win, bounds tighten, enums intersect', () => {
    const merged = merge({
      title: 'own',
      allOf: [
        { title: 'member', allOf: [{ type: 'integer', minimum: 0 }, { maximum: 10 }] },
        { type: 'number', minimum: 2, maximum: 20, enum: [1, 2, 3, 4] },
        { enum: [2, 3, 9] },
      ],
    })
    assert.deepEqual(merged, { title: 'own', type: 'integer', minimum: 2, maximum: 10, enum: [2, 3] })
  })

  test('members that are not objects merge by type; disjoint types or values cannot be merged', () => {
    assert.deepEqual(merge({ allOf: [{ type: 'string' }, { minLength: 1 }] }), {
      type: 'string',
      minLength: 1,
    })
    assert.deepEqual(merge({ allOf: [{ type: ['string', 'null'] }, { type: 'string', format: 'email' }] }), {
      type: 'string',
      format: 'email',
    })
    assert.equal(merge({ allOf: [{ type: 'string' }, { type: 'object' }] }), undefined)
    assert.equal(merge({ allOf: [{ enum: ['a'] }, { enum: ['b'] }] }), undefined)
    assert.equal(merge({ allOf: [{ pattern: '^a' }, { pattern: '^b' }] }), undefined)
    assert.equal(merge({ allOf: [{ oneOf: [{}] }, { oneOf: [{ type: 'string' }] }] }), undefined)
    assert.equal(merge({ allOf: ['not a schema'] }), undefined)
    assert.deepEqual(merge({ allOf: [true, { type: 'string' }] }), { type: 'string' })
  })

  test('recursion: a recursive definition is opened once, its self-references stay; a cycle of allOf is left alone', () => {
    const merged = merge({ allOf: [{ $ref: '#/$defs/Node' }, { properties: { label: { type: 'string' } } }] })
    assert.deepEqual(merged?.properties, {
      value: { type: 'integer' },
      children: { type: 'array', items: { $ref: '#/$defs/Node' } },
      label: { type: 'string' },
    })
    assert.equal(merge({ allOf: [{ $ref: '#/$defs/Loop' }] }), undefined)
    assert.equal(merge({ allOf: [{ $ref: '#/$defs/Missing' }] }), undefined)
  })

  test('members that each close themselves: merged by intent into one closed object, and said', () => {
    const result = mergeAllOf(
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
          { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false },
        ],
      },
      resolve,
    )
    assert.equal(result?.closedConflict, true)
    assert.equal(result?.schema.additionalProperties, false)
    assert.deepEqual(Object.keys(result?.schema.properties as object), ['a', 'b'])
    const open = mergeAllOf({ allOf: [{ properties: { a: {} } }, { properties: { b: {} } }] }, resolve)
    assert.equal(open?.closedConflict, false)
    assert.equal(open?.schema.additionalProperties, undefined)
  })

  test('required names of a remaining union stay, for the branches to declare', () => {
    const merged = merge({
      required: ['kind'],
      oneOf: [{ properties: { kind: { const: 'a' } } }],
      allOf: [{ properties: { id: { type: 'string' } } }],
    })
    assert.deepEqual(merged?.required, ['kind'])
  })

  // The merge must mean what the allOf means: the same values pass and fail (for open objects).
  test('fast-check: the merged schema accepts exactly what the allOf accepts', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false })
    const names = ['a', 'b', 'c']
    const leaf = fc.oneof(
      fc.record(
        { type: fc.constantFrom('string', 'integer', 'number'), minimum: fc.integer({ min: -2, max: 5 }) },
        { requiredKeys: [] },
      ),
      fc.record(
        { type: fc.constant('string'), minLength: fc.nat(3), maxLength: fc.integer({ min: 2, max: 6 }) },
        { requiredKeys: ['type'] },
      ),
      fc.record({
        enum: fc.uniqueArray(fc.oneof(fc.constantFrom('x', 'y', 'z'), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 4,
        }),
      }),
      fc.constant({}),
    )
    const member = fc.record(
      {
        type: fc.constant('object'),
        properties: fc.dictionary(fc.constantFrom(...names), leaf, { maxKeys: 3 }),
        required: fc.uniqueArray(fc.constantFrom(...names), { maxLength: 2 }),
      },
      { requiredKeys: ['properties'] },
    )
    const value = fc.dictionary(
      fc.constantFrom(...names, 'd'),
      fc.oneof(
        fc.constantFrom('x', 'y', 'z', '', 'long text'),
        fc.integer({ min: -3, max: 8 }),
        fc.double({ noNaN: true, min: -3, max: 8 }),
        fc.boolean(),
        fc.constant(null),
      ),
    )
    fc.assert(
      fc.property(
        fc.array(member, { minLength: 1, maxLength: 3 }),
        fc.array(value, { maxLength: 8 }),
        (members, values) => {
          const declared = new Set(members.flatMap((m) => Object.keys(m.properties)))
          const all = {
            allOf: members.map((m) => ({
              ...m,
              required: (m.required ?? []).filter((n) => declared.has(n)),
            })),
          }
          const merged = mergeAllOf(all, resolve)
          if (!merged) return
          const literal = ajv.compile(all)
          const mine = ajv.compile(merged.schema)
          for (const v of values)
            assert.equal(mine(v), literal(v), `${JSON.stringify(v)} ${JSON.stringify(merged.schema)}`)
        },
      ),
      { numRuns: 300 },
    )
  })
})

const json = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } })

describe('composed request bodies become arguments (issue 17 class 2)', () => {
  test('an allOf body of $refs (one of them recursive) flattens: its required fields are required arguments', async () => {
    const catalog = await catalogOf({
      'img.yaml': openapi(
        {
          '/images': {
            post: {
              operationId: 'images_create_custom',
              requestBody: json({ $ref: '#/components/schemas/image_new_custom' }),
              responses: ok,
            },
          },
        },
        {
          components: {
            schemas: {
              image_new_custom: {
                allOf: [
                  { $ref: '#/components/schemas/image_update' },
                  { $ref: '#/components/schemas/folder' },
                  {
                    type: 'object',
                    properties: {
                      url: { type: 'string', example: 'https://x' },
                      region: { $ref: '#/components/schemas/region' },
                    },
                    required: ['url', 'region'],
                  },
                ],
                required: ['name'],
              },
              image_update: {
                type: 'object',
                properties: {
                  name: { $ref: '#/components/schemas/image_name' },
                  distribution: {
                    allOf: [{ $ref: '#/components/schemas/distribution' }],
                    description: 'The distribution.',
                  },
                },
              },
              image_name: { type: 'string', example: 'Nifty New Snapshot' },
              distribution: { enum: ['Ubuntu', 'Debian'] },
              region: { enum: ['nyc1', 'ams3'] },
              folder: {
                type: 'object',
                properties: {
                  parent: { $ref: '#/components/schemas/folder' },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      ),
    })
    const tool = toolById(catalog, 'img:images_create_custom')
    assert.deepEqual(Object.keys(tool.binding.arguments).sort(), [
      'distribution',
      'name',
      'parent',
      'region',
      'tags',
      'url',
    ])
    assert.deepEqual([...(tool.inputSchema.required as string[])].sort(), ['name', 'region', 'url'])
    const properties = tool.inputSchema.properties as Record<string, JsonSchema>
    assert.deepEqual(properties.distribution, {
      type: 'string',
      enum: ['Ubuntu', 'Debian'],
      description: 'The distribution.',
    })
    assert.equal(properties.region?.type, 'string')
    assert.deepEqual(properties.parent, { $ref: '#/$defs/folder' })
    assert.ok((tool.inputSchema.$defs as Record<string, unknown>).folder)
  })

  test('a oneOf body of objects stays one body argument, typed as an object, every branch typed', async () => {
    const catalog = await catalogOf({
      'u.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              oneOf: [
                { properties: { a: { type: 'string' } }, required: ['a'] },
                { type: 'object', properties: { b: { enum: [1, 2] } } },
              ],
            }),
            responses: ok,
          },
        },
      }),
    })
    const body = (toolById(catalog, 'u:x').inputSchema.properties as Record<string, JsonSchema>).body!
    assert.equal(body.type, 'object')
    assert.deepEqual(
      (body.oneOf as JsonSchema[]).map((branch) => branch.type),
      ['object', 'object'],
    )
  })

  test('a form body composed with allOf (a query-style API) flattens like a JSON one', async () => {
    const catalog = await catalogOf({
      'q.yaml': openapi({
        '/': {
          post: {
            operationId: 'SendMessage',
            requestBody: {
              content: {
                'application/x-www-form-urlencoded': {
                  schema: {
                    allOf: [
                      {
                        type: 'object',
                        properties: { Action: { enum: ['SendMessage'] } },
                        required: ['Action'],
                      },
                      {
                        type: 'object',
                        properties: { QueueUrl: { type: 'string' }, MessageBody: { type: 'string' } },
                        required: ['QueueUrl', 'MessageBody'],
                      },
                    ],
                  },
                },
              },
            },
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'q:SendMessage')
    assert.deepEqual(tool.inputSchema.required, ['Action', 'QueueUrl', 'MessageBody'])
    assert.deepEqual(problemsOf(catalog, 'schema-allof-closed'), [])
  })

  test('a root that closes itself beside an allOf that declares its properties: merged closed, and said', async () => {
    const catalog = await catalogOf({
      'c.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              type: 'object',
              additionalProperties: false,
              allOf: [{ type: 'object', properties: { a: { type: 'string' } } }],
            }),
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(Object.keys(toolById(catalog, 'c:x').binding.arguments), ['a'])
    assert.equal(problemsOf(catalog, 'schema-allof-closed').length, 1)
  })

  test("properties written as a $ref to a map (DigitalOcean's bundled load balancers): the map is used, its required fields declared", async () => {
    const catalog = await catalogOf({
      'lb.yaml': openapi(
        {
          '/lb': {
            post: {
              operationId: 'create',
              requestBody: json({
                oneOf: [
                  {
                    allOf: [
                      { type: 'object', properties: { $ref: '#/components/schemas/droplets/properties' } },
                      { type: 'object', properties: { name: { type: 'string' } } },
                    ],
                    required: ['droplet_ids'],
                  },
                  { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
                ],
              }),
              responses: ok,
            },
          },
        },
        {
          components: {
            schemas: {
              droplets: {
                type: 'object',
                properties: { droplet_ids: { type: 'array', items: { type: 'integer' } } },
              },
            },
          },
        },
      ),
    })
    const body = (toolById(catalog, 'lb:create').inputSchema.properties as Record<string, JsonSchema>).body!
    const first = (body.oneOf as JsonSchema[])[0]!
    assert.deepEqual(Object.keys(first.properties as object), ['droplet_ids', 'name'])
    assert.deepEqual(first.required, ['droplet_ids'])
    assert.equal(problemsOf(catalog, 'schema-properties-ref').length, 1)
    assert.deepEqual(problemsOf(catalog, 'schema-required-unknown'), [])
  })

  test('mutually recursive allOf definitions neither loop nor lose the tool', async () => {
    const catalog = await catalogOf({
      'r.yaml': openapi(
        {
          '/x': {
            post: { operationId: 'x', requestBody: json({ $ref: '#/components/schemas/A' }), responses: ok },
          },
        },
        {
          components: {
            schemas: {
              A: { allOf: [{ $ref: '#/components/schemas/B' }], properties: { a: { type: 'string' } } },
              B: {
                allOf: [{ $ref: '#/components/schemas/A' }],
                properties: { b: { $ref: '#/components/schemas/A' } },
              },
            },
          },
        },
      ),
    })
    const tool = toolById(catalog, 'r:x')
    assert.ok(Object.keys(tool.binding.arguments).length > 0)
    assert.deepEqual(
      catalog.problems.filter((p) => p.severity === 'error'),
      [],
    )
  })
})
