// Issue 16, typed results: each tool's output schema comes from its success response, lenient by
// design (docs/catalog.md "Typed results"), or the tool says why it has none.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { Tool, ToolOutput } from '../../src/catalog/index.js'
import { catalogOf, openapi, toolById } from '../helpers/memory-catalog.js'

const json = (schema: unknown) => ({ content: { 'application/json': { schema } } })
const get = (operationId: string, responses: unknown) => ({ get: { operationId, responses } })

function schemaOf(tool: Tool) {
  const output = tool.structuredOutput
  assert.ok('schema' in output, `${tool.id} has no output schema: ${(output as { reason: string }).reason}`)
  return output.schema as Record<string, unknown> & { properties: Record<string, unknown> }
}

/** A member of a schema, down a path of keys. */
function at(schema: unknown, ...keys: string[]): unknown {
  return keys.reduce((node, key) => (node as Record<string, unknown>)[key], schema)
}

const reasonOf = (tool: Tool) => (tool.structuredOutput as { reason?: string }).reason

describe('output schemas: which response, or why none', () => {
  test('the lowest explicit 2xx wins, then 2XX; default is never a success', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/lowest': get('lowest', {
          '202': json({ type: 'object', properties: { b: { type: 'string' } } }),
          '200': json({ type: 'object', properties: { a: { type: 'string' } } }),
          '2XX': json({ type: 'object', properties: { c: { type: 'string' } } }),
        }),
        '/range': get('range', {
          '2XX': json({ type: 'object', properties: { c: { type: 'string' } } }),
          default: json({ type: 'object' }),
        }),
        '/default': get('onlyDefault', { default: json({ type: 'object' }) }),
        '/errors': get('onlyErrors', { '404': json({ type: 'object' }) }),
      }),
    })
    const lowest = toolById(catalog, 'a:lowest').structuredOutput as Extract<ToolOutput, { status: string }>
    assert.equal(lowest.status, '200')
    assert.equal(lowest.contentType, 'application/json')
    assert.deepEqual(Object.keys(lowest.schema.properties as object), ['a'])
    assert.equal((toolById(catalog, 'a:range').structuredOutput as { status: string }).status, '2XX')
    assert.equal(reasonOf(toolById(catalog, 'a:onlyDefault')), 'no 2xx response')
    assert.equal(reasonOf(toolById(catalog, 'a:onlyErrors')), 'no 2xx response')
  })

  test('every reason: no content, not JSON, no schema, an array, a scalar, no type said', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/empty': { delete: { operationId: 'empty', responses: { '204': { description: 'gone' } } } },
        '/csv': get('csv', { '200': { content: { 'text/csv': { schema: { type: 'string' } } } } }),
        '/noschema': get('noSchema', { '200': { content: { 'application/json': {} } } }),
        '/array': get('array', { '200': json({ type: 'array', items: { type: 'object' } }) }),
        '/string': get('string', { '200': json({ type: 'string' }) }),
        '/either': get('either', { '200': json({ oneOf: [{ type: 'object' }, { type: 'array' }] }) }),
        '/any': get('any', { '200': json({ description: 'anything' }) }),
      }),
    })
    const reasons = Object.fromEntries(catalog.tools.map((tool) => [tool.id, reasonOf(tool)]))
    assert.deepEqual(reasons, {
      'a:any': 'the 200 JSON response schema does not say it is an object',
      'a:array': 'the 200 JSON response is an array, MCP output schemas must be objects',
      'a:csv': 'the 200 response is not JSON (text/csv)',
      'a:either':
        'the 200 JSON response is not always an object (object, array), MCP output schemas must be objects',
      'a:empty': 'the 204 response has no content',
      'a:noSchema': 'the 200 JSON response has no schema',
      'a:string': 'the 200 JSON response is a string, MCP output schemas must be objects',
    })
  })

  test('JSON is application/json first, else any +json or json media type', async () => {
    const problem = { type: 'object', properties: { p: { type: 'string' } } }
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/vendor': get('vendor', {
          '200': {
            content: {
              'text/plain': { schema: { type: 'string' } },
              'application/vnd.example.v2+json; charset=utf-8': { schema: problem },
            },
          },
        }),
        '/both': get('both', {
          '200': {
            content: {
              'application/problem+json': { schema: problem },
              'application/json': { schema: { type: 'object', properties: { j: { type: 'string' } } } },
            },
          },
        }),
      }),
    })
    const vendor = toolById(catalog, 'a:vendor').structuredOutput as { contentType: string }
    assert.equal(vendor.contentType, 'application/vnd.example.v2+json; charset=utf-8')
    assert.deepEqual(Object.keys(schemaOf(toolById(catalog, 'a:both')).properties), ['j'])
  })

  test('services.<id>.outputSchemas: false turns them off, saying so', async () => {
    const spec = openapi({ '/x': get('x', { '200': json({ type: 'object' }) }) })
    const catalog = await catalogOf({ 'a.yaml': spec }, { services: { a: { outputSchemas: false } } })
    assert.equal(
      reasonOf(toolById(catalog, 'a:x')),
      'output schemas are turned off for this service (services.a.outputSchemas: false)',
    )
  })
})

describe('output schemas are lenient', () => {
  test('structure and types stay; required, closed objects, enum, format, patterns and bounds go; null is allowed', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi(
        {
          '/pet': get('getPet', {
            '200': json({
              type: 'object',
              title: 'Pet',
              required: ['id', 'name'],
              additionalProperties: false,
              minProperties: 1,
              properties: {
                id: { type: 'integer', format: 'int64', minimum: 1, readOnly: true },
                name: { type: 'string', pattern: '^[a-z]+$', maxLength: 10, description: 'Its name.' },
                status: { enum: ['sold', 'pending'] },
                weight: { enum: [1, 2.5] },
                kind: { const: 'pet' },
                secret: { type: 'string', writeOnly: true },
                tags: {
                  type: 'array',
                  items: { $ref: '#/components/schemas/Tag' },
                  maxItems: 3,
                  uniqueItems: true,
                },
                owner: {
                  oneOf: [
                    { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
                    { type: 'object', required: ['b'], properties: { b: { type: 'string' } } },
                  ],
                },
                labels: { type: 'object', additionalProperties: { type: 'string' } },
                never: { not: {} },
                nothing: false,
              },
            }),
          }),
        },
        {
          components: {
            schemas: {
              Tag: {
                type: 'object',
                required: ['n'],
                unevaluatedProperties: false,
                properties: { n: { type: 'string' } },
              },
            },
          },
        },
      ),
    })
    const schema = schemaOf(toolById(catalog, 'a:getPet'))
    assert.deepEqual(schema, {
      type: 'object',
      title: 'Pet',
      properties: {
        id: { type: ['integer', 'null'], readOnly: true },
        name: { type: ['string', 'null'], description: 'Its name.' },
        status: { type: ['string', 'null'] },
        weight: { type: ['number', 'null'] },
        kind: { type: ['string', 'null'] },
        secret: { type: ['string', 'null'], writeOnly: true },
        tags: {
          type: ['array', 'null'],
          items: { type: ['object', 'null'], properties: { n: { type: ['string', 'null'] } } },
        },
        owner: {
          anyOf: [
            { type: ['object', 'null'], properties: { a: { type: ['string', 'null'] } } },
            { type: ['object', 'null'], properties: { b: { type: ['string', 'null'] } } },
          ],
        },
        labels: { type: ['object', 'null'], additionalProperties: { type: ['string', 'null'] } },
        never: {},
      },
    })
    const ajv = new Ajv2020({ strict: false })
    const validate = ajv.compile(schema)
    const answer = {
      id: null,
      name: 'NOT-lower-case and far too long',
      status: 'adopted',
      weight: 7,
      kind: 'cat',
      tags: [{}, { extra: 1 }, null, {}],
      owner: { a: 'x', b: 'y' },
      labels: {},
      undeclared: true,
    }
    assert.ok(validate(answer), ajv.errorsText(validate.errors))
    assert.equal(validate({ id: 'seven' }), false, 'types are still checked')
  })

  test('recursive responses keep $defs; a recursive root is opened one level', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi(
        { '/node': get('node', { '200': json({ $ref: '#/components/schemas/Node' }) }) },
        {
          components: {
            schemas: {
              Node: {
                type: 'object',
                required: ['children'],
                properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
              },
            },
          },
        },
      ),
    })
    const schema = schemaOf(toolById(catalog, 'a:node'))
    assert.equal(schema.type, 'object')
    assert.deepEqual(at(schema, 'properties', 'children', 'items'), { $ref: '#/$defs/Node' })
    assert.deepEqual(at(schema, '$defs', 'Node', 'type'), ['object', 'null'])
    assert.equal(at(schema, '$defs', 'Node', 'required'), undefined)
    const validate = new Ajv2020({ strict: false }).compile(schema)
    assert.ok(validate({ children: [{ children: [] }, { children: null }, {}] }))
  })

  test('read-only properties, left out of input schemas, are in output schemas', async () => {
    const pet = {
      type: 'object',
      properties: { id: { type: 'string', readOnly: true }, name: { type: 'string' } },
    }
    const catalog = await catalogOf({
      'a.yaml': openapi(
        {
          '/pets': {
            post: {
              operationId: 'addPet',
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } },
              },
              responses: { '201': json({ $ref: '#/components/schemas/Pet' }) },
            },
          },
        },
        { components: { schemas: { Pet: pet } } },
      ),
    })
    const tool = toolById(catalog, 'a:addPet')
    assert.deepEqual(Object.keys(tool.inputSchema.properties as object), ['name'])
    assert.deepEqual(Object.keys(schemaOf(tool).properties), ['id', 'name'])
  })

  test('spec-supplied property names like __proto__ and constructor survive as keys', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty']
    const properties = Object.fromEntries(names.map((name) => [name, { type: 'string', description: name }]))
    const catalog = await catalogOf({
      'a.json': openapi({ '/odd': get('odd', { '200': json({ type: 'object', properties }) }) }),
    })
    const schema = schemaOf(toolById(catalog, 'a:odd'))
    assert.deepEqual(Object.keys(schema.properties), names)
    assert.equal(Object.getPrototypeOf(schema.properties), Object.prototype, 'the prototype is untouched')
    const own = (name: string) => Object.getOwnPropertyDescriptor(schema.properties, name)?.value
    assert.deepEqual(own('__proto__'), { type: ['string', 'null'], description: '__proto__' })
    // Ajv reads an absent `constructor` as Object's inherited function: such names are left unchecked.
    for (const name of names.slice(1)) assert.deepEqual(own(name), { description: name })
    // As the SDK 1.x client compiles it (draft-07 Ajv): an answer without those keys passes.
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema)
    assert.ok(validate({}), JSON.stringify(validate.errors))
    assert.ok(validate(JSON.parse('{"__proto__": "x", "constructor": null, "toString": 1}')))
  })

  test('a response repair is a warning at its pointer, once even when the request side meets it too', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({ $ref: '#/components/schemas/Missing' }),
            responses: {
              '200': json({
                type: 'object',
                properties: { a: { $ref: '#/components/schemas/Missing' }, b: 7 },
              }),
            },
          },
        },
      }),
    })
    const pointers = catalog.problems.map((problem) => `${problem.code} ${problem.pointer}`)
    assert.ok(
      pointers.includes(
        'schema-invalid /paths/~1x/post/responses/200/content/application~1json/schema/properties/b',
      ),
      pointers.join('\n'),
    )
    assert.ok(
      pointers.includes(
        'ref-dangling /paths/~1x/post/responses/200/content/application~1json/schema/properties/a',
      ),
    )
    assert.equal(new Set(pointers).size, pointers.length, 'no problem twice')
    assert.deepEqual(schemaOf(toolById(catalog, 'a:x')).properties, { a: {}, b: {} })
  })

  test('past limits.outputSchemaNodes only the top level is described; past that too, none', async () => {
    const nested = { type: 'object', description: 'nested', properties: { x: { type: 'string' } } }
    const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, nested]))
    const files = {
      'a.yaml': openapi({ '/big': get('big', { '200': json({ type: 'object', properties }) }) }),
    }
    const top = toolById(await catalogOf(files, { limits: { outputSchemaNodes: 30 } }), 'a:big')
    assert.equal((top.structuredOutput as { topLevelOnly?: true }).topLevelOnly, true)
    assert.deepEqual(at(schemaOf(top), 'properties', 'p3'), {
      description: 'nested',
      type: ['object', 'null'],
    })
    const none = toolById(await catalogOf(files, { limits: { outputSchemaNodes: 10 } }), 'a:big')
    assert.equal(
      reasonOf(none),
      'the 200 JSON response schema has more than 10 nodes even at its top level (limits.outputSchemaNodes)',
    )
    const full = toolById(await catalogOf(files), 'a:big')
    assert.equal((full.structuredOutput as { topLevelOnly?: true }).topLevelOnly, undefined)
  })
})

describe('output schemas: type lists and allOf on the response side (issue 20 row 4)', () => {
  test('a type list keeps valid names once, in order, file read as string, null added', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/t': get('types', {
          '200': json({
            type: 'object',
            properties: {
              list: { type: ['string', 'file', 'bogus', 'string', 'integer'] },
              file: { type: 'file' },
              bogus: { type: 'bogus', enum: [1, 2.5] },
              none: { type: ['bogus'] },
              withNull: { type: ['null', 'boolean'] },
            },
          }),
        }),
      }),
    })
    const properties = schemaOf(toolById(catalog, 'a:types')).properties
    assert.deepEqual(at(properties, 'list', 'type'), ['string', 'integer', 'null'])
    assert.deepEqual(at(properties, 'file', 'type'), ['string', 'null'])
    assert.deepEqual(at(properties, 'bogus', 'type'), ['number', 'null'])
    assert.equal(at(properties, 'none', 'type'), undefined)
    assert.deepEqual(at(properties, 'withNull', 'type'), ['null', 'boolean'])
  })

  test('an allOf is merged on the response side; a schema without one is left as walked', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/m': get('merged', {
          '200': json({
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } } },
              { type: 'object', properties: { b: { type: 'integer' } } },
            ],
          }),
        }),
        '/p': get('plain', { '200': json({ type: 'object', properties: { c: { type: 'string' } } }) }),
      }),
    })
    const merged = schemaOf(toolById(catalog, 'a:merged'))
    assert.equal(merged.allOf, undefined)
    assert.deepEqual(Object.keys(merged.properties), ['a', 'b'])
    const plain = schemaOf(toolById(catalog, 'a:plain'))
    assert.deepEqual(plain, { type: 'object', properties: { c: { type: ['string', 'null'] } } })
  })
})
