// Every failure of the peers (research/converters.md §3 and §4) that concerns the catalog, each
// shown done right: the tool is there, its schema is valid and its binding maps back to the request.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { anyValueSchema } from '../../src/catalog/infer-type.js'
import { ARGUMENT_KEY_PATTERN } from '../../src/catalog/input-schema.js'
import { WIRE_NAME_PATTERN } from '../../src/catalog/wire-name.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'

const json = (schema: unknown, required = true) => ({ required, content: { 'application/json': { schema } } })
const props = (tool: { inputSchema: Record<string, unknown> }) =>
  tool.inputSchema.properties as Record<string, Record<string, unknown>>

describe('converters §3/§4: what the peers get wrong', () => {
  test('array without items (samchon crashes on the whole document): items of any value added, a warning, the document serves', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          get: {
            operationId: 'x',
            parameters: [{ name: 'ids', in: 'query', schema: { type: 'array' } }],
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(props(toolById(catalog, 'a:x')).ids, { type: 'array', items: anyValueSchema() })
    assert.equal(
      problemsOf(catalog, 'schema-array-without-items')[0]?.pointer,
      '/paths/~1x/get/parameters/0/schema',
    )
  })

  test('top-level oneOf body (Anthropic rejects non-object roots): wrapped as one body argument, root stays an object', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/pets': {
          post: {
            operationId: 'add',
            requestBody: json({
              oneOf: [
                { type: 'object', properties: { cat: { type: 'string' } } },
                { type: 'object', properties: { dog: { type: 'string' } } },
              ],
            }),
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'a:add')
    assert.equal(tool.inputSchema.type, 'object')
    assert.ok(Array.isArray(props(tool).body?.oneOf))
    assert.deepEqual(tool.inputSchema.required, ['body'])
    assert.deepEqual(tool.binding.arguments.body, { in: 'body', whole: true })
  })

  test('top-level allOf body of plain objects (inheritance) is merged and flattened', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi(
        {
          '/pets': {
            post: {
              operationId: 'add',
              requestBody: json({
                allOf: [
                  { $ref: '#/components/schemas/Base' },
                  { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
                ],
              }),
              responses: ok,
            },
          },
        },
        {
          components: {
            schemas: { Base: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
          },
        },
      ),
    })
    const tool = toolById(catalog, 'a:add')
    assert.deepEqual(Object.keys(props(tool)), ['id', 'name'])
    assert.deepEqual(tool.inputSchema.required, ['id', 'name'])
    assert.deepEqual(tool.binding.arguments.name, { in: 'body', name: 'name' })
  })

  test('allOf members that each close themselves (additionalProperties: false) are merged, with a warning', async () => {
    const closed = (name: string) => ({
      type: 'object',
      additionalProperties: false,
      required: [name],
      properties: { [name]: { type: 'string' } },
    })
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              type: 'object',
              properties: { nested: { allOf: [closed('a'), closed('b')] } },
              allOf: [closed('c'), closed('d')],
            }),
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'a:x')
    assert.deepEqual(
      Object.keys(props(tool)),
      ['nested', 'c', 'd'],
      'the root body and its allOf members become one object',
    )
    assert.deepEqual(tool.inputSchema.required, ['c', 'd'])
    assert.deepEqual(props(tool).nested, {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      required: ['a', 'b'],
      additionalProperties: false,
    })
    const root = tool.requestBody?.schemas['application/json'] as Record<string, Record<string, unknown>>
    assert.equal(root.allOf, undefined)
    assert.deepEqual(problemsOf(catalog, 'schema-allof-closed').length, 2)
  })

  test('a string path parameter cannot be empty (minLength: 1): an empty segment would reach another route', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/e/{n}/b/{id}': {
          get: {
            operationId: 'x',
            parameters: [
              { name: 'n', in: 'path', required: true, schema: { type: 'integer' } },
              { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 3 } },
            ],
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(props(toolById(catalog, 'a:x')), {
      n: { type: 'integer' },
      id: { type: 'string', minLength: 3 },
    })
    const open = await catalogOf({
      'a.yaml': openapi({
        '/e/{id}': {
          get: {
            operationId: 'x',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(props(toolById(open, 'a:x')).id, { type: 'string', minLength: 1 })
  })

  test('top-level allOf with a non-object member stays one body argument', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              allOf: [{ type: 'object', properties: { a: {} } }, { oneOf: [{ required: ['a'] }] }],
            }),
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(Object.keys(props(toolById(catalog, 'a:x'))), ['body'])
  })

  test('filter[name]-style keys (deepObject) and $top are sanitized; the binding keeps the wire name', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          get: {
            operationId: 'x',
            parameters: [
              { name: 'filter[name]', in: 'query', schema: { type: 'string' } },
              { name: '$top', in: 'query', schema: { type: 'integer' } },
              { name: 'page size', in: 'query', schema: { type: 'integer' } },
            ],
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'a:x')
    assert.deepEqual(tool.binding.arguments, {
      filter_name: { in: 'query', name: 'filter[name]' },
      top: { in: 'query', name: '$top' },
      page_size: { in: 'query', name: 'page size' },
    })
    assert.match(String(props(tool).filter_name?.description), /Sent as query parameter "filter\[name\]"/)
    for (const key of Object.keys(props(tool))) assert.match(key, ARGUMENT_KEY_PATTERN)
  })

  test('nested body keys that are not valid argument keys stay as they are (only top-level keys are arguments)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              type: 'object',
              properties: { 'meta data': { type: 'object', properties: { 'a b': { type: 'string' } } } },
            }),
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'a:x')
    assert.deepEqual(tool.binding.arguments, { meta_data: { in: 'body', name: 'meta data' } })
    assert.deepEqual(Object.keys(props(tool).meta_data?.properties as object), ['a b'])
  })

  test('missing operationIds (samchon ignores them anyway; Infobip throws): method+path IDs and names', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/users/{userId}/posts': {
          get: { responses: ok, parameters: [{ name: 'userId', in: 'path', required: true }] },
        },
      }),
    })
    const tool = toolById(catalog, 'a:get:/users/{userId}/posts')
    assert.equal(tool.wireName, 'a_get_users_user_id_posts')
  })

  test('a path-level parameter overridden per operation (samchon: path-param count mismatch → rejected)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/t/{id}': {
          parameters: [
            { name: 'id', in: 'path', required: true, description: 'path-level', schema: { type: 'string' } },
          ],
          put: {
            operationId: 'put',
            parameters: [
              {
                name: 'id',
                in: 'path',
                required: true,
                description: 'operation-level',
                schema: { type: 'integer' },
              },
            ],
            responses: ok,
          },
          get: { operationId: 'get', responses: ok },
        },
      }),
    })
    assert.deepEqual(props(toolById(catalog, 'a:put')).id, {
      type: 'integer',
      description: 'operation-level',
    })
    assert.deepEqual(props(toolById(catalog, 'a:get')).id, {
      type: 'string',
      minLength: 1,
      description: 'path-level',
    })
  })

  test('Swagger 2.0 in: body (harsha never sends it, ivo-toby makes it a string) is a flattened JSON body', async () => {
    const catalog = await catalogOf({
      'p.json': {
        swagger: '2.0',
        info: { title: 'P', version: '1' },
        paths: {
          '/pets': {
            post: {
              operationId: 'add',
              consumes: ['application/json'],
              parameters: [
                { name: 'pet', in: 'body', required: true, schema: { $ref: '#/definitions/Pet' } },
              ],
              responses: ok,
            },
          },
        },
        definitions: {
          Pet: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, tag: { type: 'string', 'x-nullable': true } },
          },
        },
      },
    })
    const tool = toolById(catalog, 'p:add')
    assert.deepEqual(props(tool), { name: { type: 'string' }, tag: { type: ['string', 'null'] } })
    assert.deepEqual(tool.inputSchema.required, ['name'])
    assert.equal(tool.binding.bodyContentType, 'application/json')
  })

  test('Swagger 2.0 formData (harsha drops it) becomes a form body; file parameters become base64 multipart parts', async () => {
    const catalog = await catalogOf({
      'p.json': {
        swagger: '2.0',
        info: { title: 'P', version: '1' },
        paths: {
          '/pay': {
            post: {
              operationId: 'pay',
              consumes: ['application/x-www-form-urlencoded'],
              parameters: [{ name: 'amount', in: 'formData', type: 'number', required: true }],
              responses: ok,
            },
          },
          '/upload': {
            post: {
              operationId: 'upload',
              consumes: ['multipart/form-data'],
              parameters: [
                { name: 'file', in: 'formData', type: 'file', required: true },
                { name: 'note', in: 'formData', type: 'string' },
              ],
              responses: ok,
            },
          },
        },
      },
    })
    const pay = toolById(catalog, 'p:pay')
    assert.equal(pay.binding.bodyContentType, 'application/x-www-form-urlencoded')
    assert.deepEqual(pay.binding.arguments, { amount: { in: 'body', name: 'amount' } })
    assert.deepEqual(pay.inputSchema.required, ['amount'])
    const upload = toolById(catalog, 'p:upload')
    assert.equal(upload.binding.bodyContentType, 'multipart/form-data')
    assert.equal(props(upload).file?.contentEncoding, 'base64')
    assert.equal(props(upload).file?.type, 'string')
  })

  test('OpenAPI 3.1 webhooks and callbacks are not tools (samchon emits webhooks as callable functions)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi(
        {
          '/subscribe': {
            post: {
              operationId: 'subscribe',
              callbacks: {
                onEvent: {
                  '{$request.body#/url}': { post: { operationId: 'eventCallback', responses: ok } },
                },
              },
              responses: ok,
            },
          },
        },
        { webhooks: { newPet: { post: { operationId: 'newPetHook', responses: ok } } } },
      ),
    })
    assert.deepEqual(
      catalog.tools.map((t) => t.id),
      ['a:subscribe'],
    )
  })

  test('multipart/form-data, form-urlencoded and octet-stream-only bodies are tools like any other (samchon rejects multipart)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/form': {
          post: {
            operationId: 'form',
            requestBody: {
              content: {
                'application/x-www-form-urlencoded': {
                  schema: {
                    type: 'object',
                    properties: { 'metadata[key]': { type: 'string' }, amount: { type: 'integer' } },
                  },
                },
              },
            },
            responses: ok,
          },
        },
        '/multi': {
          post: {
            operationId: 'multi',
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    required: ['file'],
                    properties: { file: { type: 'string', format: 'binary' }, meta: { type: 'object' } },
                  },
                  encoding: { meta: { contentType: 'application/json' } },
                },
              },
            },
            responses: ok,
          },
        },
        '/raw': {
          put: {
            operationId: 'raw',
            requestBody: {
              required: true,
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(toolById(catalog, 'a:form').binding.arguments, {
      metadata_key: { in: 'body', name: 'metadata[key]' },
      amount: { in: 'body', name: 'amount' },
    })
    const multi = toolById(catalog, 'a:multi')
    assert.deepEqual(multi.requestBody?.encodings, {
      'multipart/form-data': { meta: { contentType: 'application/json' } },
    })
    assert.deepEqual(multi.inputSchema.required, ['file'])
    const raw = toolById(catalog, 'a:raw')
    assert.deepEqual(raw.binding, {
      arguments: { body: { in: 'body', whole: true } },
      bodyContentType: 'application/octet-stream',
    })
    assert.equal(props(raw).body?.contentEncoding, 'base64')
  })

  test('a path key with a #fragment (samchon rejects it) sends the part before #', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/cookies#formExploded': { get: { responses: ok } },
        '/cookies#formNotExploded': { get: { responses: ok } },
      }),
    })
    assert.deepEqual(
      catalog.tools.map((t) => [t.path, t.wireName]),
      [
        ['/cookies', 'a_get_cookies_form_exploded'],
        ['/cookies', 'a_get_cookies_form_not_exploded'],
      ],
    )
  })

  test('a description over 1,024 characters does not reject the operation (samchon does)', async () => {
    const description = 'Long. '.repeat(400)
    const catalog = await catalogOf({
      'a.yaml': openapi({ '/x': { get: { operationId: 'x', description, responses: ok } } }),
    })
    assert.equal(toolById(catalog, 'a:x').description, description.trim())
  })

  test('cookie and header parameters are arguments (samchon drops them); Accept, Content-Type and Authorization are not', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          get: {
            operationId: 'x',
            parameters: ['session', 'X-Trace', 'Accept', 'content-type', 'Authorization'].map((name, i) => ({
              name,
              in: i === 0 ? 'cookie' : 'header',
              schema: { type: 'string' },
            })),
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(toolById(catalog, 'a:x').binding.arguments, {
      'X-Trace': { in: 'header', name: 'X-Trace' },
      session: { in: 'cookie', name: 'session' },
    })
  })

  test('a query and a body property of one name both survive (ivo-toby sends the renamed one upstream under the wrong name)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/t/{id}': {
          post: {
            operationId: 'x',
            parameters: [
              { name: 'id', in: 'path', required: true },
              { name: 'id', in: 'query' },
            ],
            requestBody: json({ type: 'object', properties: { id: { type: 'string' } } }),
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(toolById(catalog, 'a:x').binding.arguments, {
      id: { in: 'path', name: 'id' },
      query_id: { in: 'query', name: 'id' },
      body_id: { in: 'body', name: 'id' },
    })
    assert.equal(problemsOf(catalog, 'argument-clash').length, 2)
  })

  test('schema x- extensions and OpenAPI-only keywords do not leak into input schemas (ivo-toby leaks x-parameter-location)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              type: 'object',
              discriminator: { propertyName: 'kind' },
              xml: { name: 'x' },
              'x-internal': true,
              properties: {
                kind: { type: 'string', example: 'cat', 'x-order': 1 },
                id: { type: 'string', readOnly: true },
              },
              required: ['id', 'kind'],
            }),
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'a:x')
    assert.deepEqual(props(tool), { kind: { type: 'string', examples: ['cat'] } })
    assert.deepEqual(tool.inputSchema.required, ['kind'])
  })

  test('authoring errors are repaired locally: a required name with no property, a false property, a non-schema', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: json({
              type: 'object',
              required: ['ghost', 'a'],
              properties: { a: { type: 'string' }, b: false, c: 'string' },
            }),
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 'a:x')
    assert.deepEqual(props(tool), { a: { type: 'string' }, c: anyValueSchema() })
    assert.deepEqual(tool.inputSchema.required, ['a'])
    assert.deepEqual(catalog.problems.map((p) => p.code).sort(), [
      'schema-false-property',
      'schema-invalid',
      'schema-required-unknown',
    ])
    assert.equal(catalog.sources[0]?.status, 'ok')
  })

  test('an undeclared path template variable gets a required string parameter (harsha/ivo-toby leave {id} in the URL)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({ '/t/{id}': { get: { operationId: 'x', responses: ok } } }),
    })
    const tool = toolById(catalog, 'a:x')
    assert.deepEqual(tool.binding.arguments, { id: { in: 'path', name: 'id' } })
    assert.deepEqual(tool.inputSchema.required, ['id'])
    assert.equal(problemsOf(catalog, 'parameter-path-undeclared').length, 1)
  })

  test('tool names over 64 characters get a stable hash suffix, never a random one (samchon falls back to UUIDv4)', async () => {
    const operationId = 'getTheVeryLongResourceNameThatKeepsGoingAndGoingForeverAndEverAndEver'
    const build = () => catalogOf({ 'a.yaml': openapi({ '/x': { get: { operationId, responses: ok } } }) })
    const [first, second] = [await build(), await build()]
    const name = first.tools[0]!.wireName
    assert.match(name, WIRE_NAME_PATTERN)
    assert.ok(name.length <= 64 && name.length > 56, name)
    assert.match(name, /^a_get_the_very_long_resource_name.*_[0-9a-f]{8}$/)
    assert.equal(name, second.tools[0]!.wireName)
    assert.equal(problemsOf(first, 'wire-name-adjusted').length, 1)
  })
})
