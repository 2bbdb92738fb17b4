// Issue 17 class 5: `required` naming properties that do not exist (Box's `appears.start` inside
// oneOf branches, and anywhere else) is repaired at normalization: dropped with a warning at its
// pointer, while `required` naming what a parent or a sibling member declares is kept.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import type { Catalog } from '../../src/catalog/index.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'

type Schema = Record<string, unknown>

function bodySpec(schema: unknown) {
  return openapi(
    {
      '/things': {
        post: {
          operationId: 'create',
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          responses: ok,
        },
      },
    },
    { components: { schemas: { Thing: { type: 'object', properties: { payload: schema } } } } },
  )
}

async function payloadOf(schema: unknown): Promise<{ payload: Schema; catalog: Catalog }> {
  const catalog = await catalogOf({ 'box.json': bodySpec(schema) })
  const tool = toolById(catalog, 'box:create')
  return { payload: (tool.inputSchema.properties as Record<string, Schema>).payload!, catalog }
}

const SAME_INSTANCE = ['allOf', 'anyOf', 'oneOf'] as const

/** Names an output object declares: its properties and its allOf/anyOf/oneOf members'. */
function declared(schema: Schema): Set<string> {
  const names = new Set(Object.keys((schema.properties as object | undefined) ?? {}))
  for (const key of SAME_INSTANCE)
    for (const member of (schema[key] as Schema[] | undefined) ?? [])
      for (const n of declared(member)) names.add(n)
  return names
}

/** Every `required` name is declared by its object, a member beside it or the object it belongs to. */
function assertRequiredDeclared(schema: Schema, inherited: ReadonlySet<string>, at: string): void {
  const scope = new Set([...inherited, ...declared(schema)])
  for (const name of (schema.required as string[] | undefined) ?? [])
    assert.ok(scope.has(name), `${at}: required names ${name}, declared: ${[...scope].join(', ')}`)
  for (const [name, property] of Object.entries(
    (schema.properties as Record<string, Schema> | undefined) ?? {},
  ))
    assertRequiredDeclared(property, new Set(), `${at}/properties/${name}`)
  for (const key of SAME_INSTANCE)
    ((schema[key] as Schema[] | undefined) ?? []).forEach((member, i) => {
      assertRequiredDeclared(member, scope, `${at}/${key}/${i}`)
    })
}

/** What the source declares where it stands stays required in the output, node for node. */
function assertKept(source: Schema, output: Schema, inherited: ReadonlySet<string>, at: string): void {
  const scope = new Set([...inherited, ...declared(source)])
  const kept = (source.required as string[] | undefined)?.filter((name) => scope.has(name)) ?? []
  assert.deepEqual((output.required as string[] | undefined) ?? [], [...new Set(kept)], `${at}: required`)
  for (const [name, property] of Object.entries(
    (source.properties as Record<string, Schema> | undefined) ?? {},
  ))
    assertKept(
      property,
      (output.properties as Record<string, Schema>)[name]!,
      new Set(),
      `${at}/properties/${name}`,
    )
  for (const key of SAME_INSTANCE)
    ((source[key] as Schema[] | undefined) ?? []).forEach((member, i) => {
      assertKept(member, (output[key] as Schema[])[i]!, scope, `${at}/${key}/${i}`)
    })
}

/** Every `required` list anywhere in a schema, flattened. */
function allRequired(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(allRequired)
  if (schema === null || typeof schema !== 'object') return []
  return Object.entries(schema).flatMap(([key, value]) =>
    key === 'required' && Array.isArray(value) ? (value as string[]) : allRequired(value),
  )
}

describe('required names only declared properties (issue 17 class 5)', () => {
  test("Box's oneOf branches: a name no property has is dropped with a warning at the branch's required", async () => {
    const { payload, catalog } = await payloadOf({
      type: 'object',
      properties: {
        appears: { type: 'object', properties: { start: { type: 'integer' } } },
        kind: { type: 'string' },
      },
      oneOf: [
        { properties: { start: { type: 'integer' } }, required: ['appears.start', 'kind', 'start'] },
        { required: ['appears.end'] },
      ],
    })
    const branches = payload.oneOf as Schema[]
    assert.deepEqual(branches[0]!.required, ['kind', 'start'], 'a parent property and an own one stay')
    assert.equal(branches[1]!.required, undefined)
    const pointers = problemsOf(catalog, 'schema-required-unknown').map((p) => [p.pointer, p.message])
    assert.deepEqual(pointers, [
      [
        '/components/schemas/Thing/properties/payload/oneOf/0/required',
        'required names appears.start, which is not a property; it is dropped from required',
      ],
      [
        '/components/schemas/Thing/properties/payload/oneOf/1/required',
        'required names appears.end, which is not a property; it is dropped from required',
      ],
    ])
  })

  test("Box's skill cards: required on an array names its items' properties; it moves into items", async () => {
    const appears = {
      type: 'array',
      items: { type: 'object', properties: { start: { type: 'integer' }, end: { type: 'integer' } } },
      required: ['start', 'end', 'middle'],
    }
    const { payload, catalog } = await payloadOf({
      oneOf: [{ type: 'object', properties: { kind: { const: 'timeline' }, appears } }],
    })
    const moved = ((payload.oneOf as Schema[])[0]!.properties as Record<string, Schema>).appears!
    assert.equal(moved.required, undefined)
    assert.deepEqual((moved.items as Schema).required, ['start', 'end'])
    assert.deepEqual(
      problemsOf(catalog, 'schema-required-unknown').map((p) => [
        p.pointer.split('/').slice(-3).join('/'),
        p.message,
      ]),
      [
        [
          'properties/appears/required',
          "required names start, a property of the array's items, not of the array; it is moved into items",
        ],
        [
          'properties/appears/required',
          "required names end, a property of the array's items, not of the array; it is moved into items",
        ],
        [
          'properties/appears/required',
          'required names middle, but the schema is no object; it is dropped from required',
        ],
      ],
    )
  })

  test('the oneOf-of-required idiom is kept: each branch names a property of the object it belongs to', async () => {
    const { payload, catalog } = await payloadOf({
      type: 'object',
      properties: { ipv4: { type: 'string' }, ipv6: { type: 'string' } },
      oneOf: [{ required: ['ipv4'] }, { required: ['ipv6'] }],
      allOf: [{ not: { required: ['legacy'] } }],
    })
    assert.deepEqual(
      (payload.oneOf as Schema[]).map((branch) => branch.required),
      [['ipv4'], ['ipv6']],
    )
    assert.deepEqual(problemsOf(catalog, 'schema-required-unknown'), [])
  })

  test('no properties: an open object keeps required as a presence rule; a closed one cannot be satisfied, so it is dropped', async () => {
    const open = await payloadOf({ type: 'object', required: ['id'] })
    assert.deepEqual(open.payload.required, ['id'])
    assert.deepEqual(problemsOf(open.catalog, 'schema-required-unknown'), [])
    const closed = await payloadOf({ type: 'object', additionalProperties: false, required: ['id'] })
    assert.equal(closed.payload.required, undefined)
    assert.match(
      problemsOf(closed.catalog, 'schema-required-unknown')[0]!.message,
      /closed and declares no properties/,
    )
    const map = await payloadOf({
      type: 'object',
      properties: { a: {} },
      additionalProperties: { type: 'string' },
      required: ['b'],
    })
    assert.deepEqual(map.payload.required, ['b'], 'a schema-valued additionalProperties declares b')
  })

  test('property: over generated schemas, every required name is declared where it stands; ghosts are dropped and reported', async (t) => {
    const names = fc.constantFrom('p0', 'p1', 'p2', 'p3')
    const ghosts = fc.constantFrom('g0', 'g1.start', 'g[2]')
    const required = fc.uniqueArray(fc.oneof(names, ghosts), { maxLength: 4 })
    const { node } = fc.letrec<{ node: Schema; branch: Schema }>((tie) => ({
      node: fc
        .record(
          {
            properties: fc.dictionary(
              names,
              fc.oneof({ depthSize: 'small' }, fc.constant({ type: 'string' }), tie('node')),
              {
                minKeys: 1,
                maxKeys: 3,
              },
            ),
            required,
            oneOf: fc.array(tie('branch'), { minLength: 1, maxLength: 3 }),
            anyOf: fc.array(tie('branch'), { minLength: 1, maxLength: 2 }),
            additionalProperties: fc.constant(false),
          },
          { requiredKeys: ['properties'] },
        )
        .map((schema) => ({ type: 'object', ...schema })),
      branch: fc.record(
        {
          properties: fc.dictionary(names, fc.constant({ type: 'integer' }), { maxKeys: 2 }),
          required,
        },
        { requiredKeys: [] },
      ),
    }))
    let runs = 0
    let dropped = 0
    await fc.assert(
      fc.asyncProperty(node, async (schema) => {
        runs++
        const { payload, catalog } = await payloadOf(schema)
        assertRequiredDeclared(payload, new Set(), 'payload')
        const ghostsIn = allRequired(schema).filter((name) => name.startsWith('g'))
        assert.deepEqual(
          allRequired(payload).filter((name) => name.startsWith('g')),
          [],
          'no ghost stays required',
        )
        assertKept(schema, payload, new Set(), 'payload')
        const reported = problemsOf(catalog, 'schema-required-unknown')
        if (ghostsIn.length > 0) assert.ok(reported.length > 0, 'a dropped name is reported')
        assert.equal(
          reported.length,
          allRequired(schema).length - allRequired(payload).length,
          JSON.stringify(reported),
        )
        for (const problem of reported) assert.match(problem.pointer, /\/required$/)
        dropped += reported.length
        new Ajv2020({ strict: false }).compile(toolById(catalog, 'box:create').inputSchema)
      }),
      { numRuns: 150 },
    )
    assert.ok(dropped > 0)
    t.diagnostic(`${runs} generated schemas, ${dropped} required names dropped and reported`)
  })
})
