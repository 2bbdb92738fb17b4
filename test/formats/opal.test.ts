import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { buildCatalog, DISCOVER_VIEW, fsSourceReader, loadSpecsDirectory } from '../../src/catalog/index.js'
import { anyValueSchema } from '../../src/catalog/infer-type.js'
import { renderClaudeTools, renderOpenAITools } from '../../src/formats/index.js'
import { opalType, renderOpalDiscovery } from '../../src/formats/opal.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'
import { opalChecklist } from '../helpers/opal-checklist.js'
import { fromRoot } from '../helpers/paths.js'

const options = { name: 'toolgate', version: '1.0.0' }

describe('Opal discovery renderer (seed 000)', () => {
  test('enum, default, examples, items and fields move into the description; no such keys remain', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/t': {
          get: {
            operationId: 'list',
            summary: 'List things',
            'x-price': '$0.01/query',
            parameters: [
              {
                name: 'status',
                in: 'query',
                description: 'State filter',
                schema: { type: 'string', enum: ['open', 'closed'], default: 'open' },
              },
              {
                name: 'ids',
                in: 'query',
                schema: { type: 'array', items: { type: 'integer' }, examples: [[1, 2]] },
              },
              {
                name: 'filter',
                in: 'query',
                style: 'deepObject',
                schema: {
                  type: 'object',
                  required: ['owner'],
                  properties: { owner: { type: 'string' }, size: { type: 'integer', minimum: 1 } },
                },
              },
              { name: 'limit', in: 'query', schema: { type: 'integer' } },
            ],
            responses: ok,
          },
        },
      }),
    })
    const document = renderOpalDiscovery(catalog, DISCOVER_VIEW, options)
    assert.deepEqual(opalChecklist(document), [])
    const [fn] = document.functions
    assert.equal(fn?.description, 'List things. Price: $0.01/query.')
    assert.deepEqual(fn?.parameters, [
      {
        name: 'status',
        type: 'string',
        description: 'State filter. One of: open, closed. Default: open.',
        required: false,
      },
      {
        name: 'ids',
        type: 'array',
        description: 'The ids argument. Example: [1,2]. Items: integer.',
        required: false,
      },
      {
        name: 'filter',
        type: 'object',
        description: 'The filter argument. Fields: owner (string, required), size (integer).',
        required: false,
      },
      { name: 'limit', type: 'number', description: 'The limit argument.', required: false },
    ])
  })

  test('types: integer → number, unions take their first non-null type, combinators and refs → object, any value → string', () => {
    assert.equal(opalType({ type: 'integer' }), 'number')
    assert.equal(opalType({ type: ['string', 'null'] }), 'string')
    assert.equal(opalType({ oneOf: [{ type: 'object' }, { type: 'string' }] }), 'object')
    assert.equal(opalType({ anyOf: [{ type: 'integer' }, { type: 'number' }] }), 'number')
    assert.equal(opalType({ $ref: '#/$defs/Node' }), 'object')
    assert.equal(opalType(anyValueSchema()), 'string')
  })

  test('configured auth_requirements appear with snake_case scope_bundle, only on that service', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({ '/x': { get: { operationId: 'x', responses: ok } } }),
      'b.yaml': openapi({ '/y': { get: { operationId: 'y', responses: ok } } }),
    })
    const document = renderOpalDiscovery(catalog, DISCOVER_VIEW, {
      ...options,
      authRequirements: { a: [{ provider: 'OptiID', scopeBundle: 'tasks' }] },
    })
    assert.deepEqual(
      document.functions.map((f) => f.auth_requirements),
      [[{ provider: 'OptiID', scope_bundle: 'tasks', required: true }], undefined],
    )
    assert.deepEqual(opalChecklist(document), [])
  })

  const corpus = JSON.parse(
    readFileSync(fromRoot('test', 'fixtures', 'real-world', 'index.json'), 'utf8'),
  ) as { file: string; operations: number }[]
  test(`the seed 000 checklist holds for every real-world spec (${corpus.length} documents) and the shipped specs`, async () => {
    const dir = fromRoot('test', 'fixtures', 'real-world')
    let functions = 0
    for (const { file, operations } of corpus) {
      const catalog = buildCatalog(
        await loadSpecsDirectory(dir, { listFiles: async () => [file], readText: fsSourceReader.readText }),
      )
      const document = renderOpalDiscovery(catalog, DISCOVER_VIEW, options)
      assert.deepEqual(opalChecklist(document).slice(0, 5), [], file)
      assert.equal(document.functions.length, operations, file)
      functions += document.functions.length
    }
    const shipped = buildCatalog(await loadSpecsDirectory(fromRoot('specs'), fsSourceReader))
    assert.deepEqual(opalChecklist(renderOpalDiscovery(shipped, DISCOVER_VIEW, options)), [])
    assert.ok(functions > 2500)
  })
})

describe('descriptions say each thing once, and every default in words (issue 17 class 8)', () => {
  test('a file argument is "base64-encoded" once; an empty default reads Default: "" in every document', async () => {
    const catalog = await catalogOf({
      'files.yaml': openapi({
        '/files': {
          post: {
            operationId: 'upload',
            parameters: [{ name: 'label', in: 'query', schema: { type: 'string', default: '' } }],
            requestBody: {
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    properties: {
                      file: { type: 'string', format: 'binary', description: 'The document' },
                      note: { type: 'string', default: '' },
                    },
                  },
                },
              },
            },
            responses: ok,
          },
        },
      }),
    })
    const opal = renderOpalDiscovery(catalog, DISCOVER_VIEW, options)
    const file = opal.functions[0]!.parameters.find((p) => p.name === 'file')!
    assert.equal(file.description.match(/base64/gi)?.length, 1, file.description)
    const documents = {
      opal: JSON.stringify(opal),
      openai: JSON.stringify(renderOpenAITools(catalog, DISCOVER_VIEW)),
      strict: JSON.stringify(renderOpenAITools(catalog, DISCOVER_VIEW, { strict: true })),
      claude: JSON.stringify(renderClaudeTools(catalog, DISCOVER_VIEW)),
    }
    for (const [format, text] of Object.entries(documents)) {
      assert.doesNotMatch(text, /Default: \./, format)
      assert.match(text, /Default: \\"\\"\./, format)
    }
  })
})
