// Loading: formats and versions, sibling-file and circular $refs, and every kind of bad input.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { stringify } from 'yaml'
import { anyValueSchema } from '../../src/catalog/infer-type.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'

const petPath = (bodyRef: string) => ({
  '/pets': {
    post: {
      operationId: 'addPet',
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: bodyRef } } } },
      responses: ok,
    },
  },
})

describe('formats and versions', () => {
  test('OpenAPI 3.0 in YAML, 3.1 in JSON and Swagger 2.0 in JSON all load', async () => {
    const catalog = await catalogOf({
      'a.yaml': {
        openapi: '3.0.3',
        info: { title: 'A', version: '1' },
        paths: { '/a': { get: { operationId: 'a', responses: ok } } },
      },
      'b.json': {
        openapi: '3.1.0',
        info: { title: 'B', version: '1' },
        paths: { '/b': { get: { operationId: 'b', responses: ok } } },
      },
      'c.json': {
        swagger: '2.0',
        info: { title: 'C', version: '1' },
        paths: { '/c': { get: { operationId: 'c', responses: ok } } },
      },
    })
    assert.deepEqual(
      catalog.tools.map((t) => t.id),
      ['a:a', 'b:b', 'c:c'],
    )
    assert.deepEqual(
      catalog.sources.map((s) => [s.sourceId, s.format, s.status]),
      [
        ['a.yaml', 'openapi 3.0.3', 'ok'],
        ['b.json', 'openapi 3.1.0', 'ok'],
        ['c.json', 'swagger 2.0', 'ok'],
      ],
    )
  })

  test('OpenAPI 3.0 nullable becomes a type union with null', async () => {
    const catalog = await catalogOf({
      'a.yaml': {
        openapi: '3.0.0',
        info: { title: 'A', version: '1' },
        paths: {
          '/a': {
            get: {
              operationId: 'a',
              parameters: [{ name: 'q', in: 'query', schema: { type: 'string', nullable: true } }],
              responses: ok,
            },
          },
        },
      },
    })
    assert.deepEqual((toolById(catalog, 'a:a').inputSchema.properties as Record<string, unknown>).q, {
      type: ['string', 'null'],
    })
  })
})

describe('references', () => {
  test('a $ref to a sibling file (which itself refers locally) is resolved', async () => {
    const catalog = await catalogOf({
      'pets.yaml': openapi(petPath('./shared/pet.yaml#/Pet')),
      'shared/pet.yaml': {
        Pet: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, owner: { $ref: '#/Owner' } },
        },
        Owner: { type: 'object', properties: { email: { type: 'string' } } },
      },
    })
    const schema = toolById(catalog, 'pets:addPet').inputSchema
    assert.deepEqual(schema.properties, {
      name: { type: 'string' },
      owner: { type: 'object', properties: { email: { type: 'string' } } },
    })
    assert.deepEqual(schema.required, ['name'])
    assert.deepEqual(catalog.problems, [])
  })

  test('files in subdirectories are not services of their own', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({}),
      'shared/b.yaml': openapi({ '/b': { get: { responses: ok } } }),
    })
    assert.deepEqual(
      catalog.services.map((s) => s.id),
      ['a'],
    )
  })

  test('a $ref that leaves the specs directory is not read', async () => {
    const catalog = await catalogOf({ 'a.yaml': openapi(petPath('../../etc/passwd#/x')) })
    assert.match(
      problemsOf(catalog, 'source-ref-unresolved')[0]?.message ?? '',
      /outside the specs directory/,
    )
    assert.deepEqual(toolById(catalog, 'a:addPet').inputSchema.properties, { body: anyValueSchema() })
  })

  test('a missing sibling file affects only the operation using it', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        ...petPath('./missing.yaml#/Pet'),
        '/ok': { get: { operationId: 'fine', responses: ok } },
      }),
    })
    assert.equal(catalog.sources[0]?.status, 'ok')
    assert.ok(toolById(catalog, 'a:fine'))
    assert.ok(problemsOf(catalog, 'source-ref-unresolved').length > 0)
    assert.ok(problemsOf(catalog, 'ref-dangling').length > 0)
  })

  test('a dangling local $ref is repaired with {} and reported at its pointer; the tool stays', async () => {
    const catalog = await catalogOf({ 'a.yaml': openapi(petPath('#/components/schemas/Nope')) })
    assert.deepEqual(toolById(catalog, 'a:addPet').inputSchema.properties, { body: anyValueSchema() })
    assert.deepEqual(
      problemsOf(catalog, 'ref-dangling').map((p) => [p.severity, p.file, p.pointer]),
      [['warning', 'a.yaml', '/paths/~1pets/post/requestBody/content/application~1json/schema']],
    )
  })

  test('circular schemas are kept as $defs entries (directly and mutually recursive)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi(petPath('#/components/schemas/Node'), {
        components: {
          schemas: {
            Node: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
                owner: { $ref: '#/components/schemas/A' },
              },
            },
            A: { type: 'object', properties: { b: { $ref: '#/components/schemas/B' } } },
            B: { type: 'object', properties: { a: { $ref: '#/components/schemas/A' } } },
          },
        },
      }),
    })
    const schema = toolById(catalog, 'a:addPet').inputSchema
    assert.deepEqual(schema.properties, {
      name: { type: 'string' },
      children: { type: 'array', items: { $ref: '#/$defs/Node' } },
      owner: { $ref: '#/$defs/A' },
    })
    assert.deepEqual(Object.keys(schema.$defs as object), ['A', 'B', 'Node'])
    assert.deepEqual((schema.$defs as Record<string, unknown>).B, {
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' } },
    })
  })

  test('a path item given by $ref is resolved', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/a': { get: { operationId: 'a', responses: ok } },
        '/b': { $ref: '#/paths/~1a' },
      }),
    })
    assert.deepEqual(
      catalog.tools.map((t) => t.id),
      ['a:a', 'a:get:/b'].sort(),
    )
  })
})

describe('bad input: each a clear problem naming the file, never a crash', () => {
  const good = openapi({ '/ok': { get: { operationId: 'fine', responses: ok } } })
  const cases: [string, string, unknown, RegExp][] = [
    [
      'a YAML file that is not YAML',
      'bad.yaml',
      'openapi: 3.1.0\npaths: [unclosed\n  - : :',
      /not valid YAML at line \d+, column \d+/,
    ],
    ['a JSON file that is not JSON', 'bad.json', '{"openapi": "3.1.0",', /not valid JSON/],
    [
      'a document that is not OpenAPI',
      'bad.yaml',
      stringify({ name: 'my app', version: 2 }),
      /not an OpenAPI, Swagger or Arazzo document/,
    ],
    ['a list instead of a document', 'bad.json', '[1,2]', /got a list/],
    ['an empty file', 'bad.yaml', '', /empty document/],
    [
      'an unsupported OpenAPI version',
      'bad.yaml',
      stringify({ openapi: '4.0.0', info: {}, paths: {} }),
      /OpenAPI 4\.0\.0 is not supported/,
    ],
    [
      'an unsupported Swagger version',
      'bad.json',
      JSON.stringify({ swagger: '1.2', apis: [] }),
      /Swagger 1\.2 is not supported/,
    ],
    [
      'paths that are not an object',
      'bad.yaml',
      stringify({ openapi: '3.1.0', info: {}, paths: ['x'] }),
      /paths must be an object/,
    ],
  ]
  for (const [what, file, text, message] of cases) {
    test(`${what}: error on ${file}, the good file still serves`, async () => {
      const catalog = await catalogOf({ [file]: text, 'good.yaml': good })
      const errors = catalog.problems.filter((p) => p.severity === 'error')
      assert.equal(errors.length, 1, JSON.stringify(catalog.problems))
      assert.equal(errors[0]?.file, file)
      assert.match(errors[0]?.message ?? '', message)
      assert.deepEqual(
        catalog.tools.map((t) => t.id),
        ['good:fine'],
      )
      assert.deepEqual(catalog.sources.find((s) => s.sourceId === file)?.status, 'failed')
    })
  }

  test('a file with another extension is reported as not loaded', async () => {
    const catalog = await catalogOf({ 'notes.txt': 'hello', 'good.yaml': good })
    assert.deepEqual(
      problemsOf(catalog, 'source-not-a-spec-file').map((p) => [p.file, p.severity]),
      [['notes.txt', 'warning']],
    )
  })

  test('an empty specs directory is a warning, and an empty catalog', async () => {
    const catalog = await catalogOf({})
    assert.deepEqual(catalog.tools, [])
    assert.equal(problemsOf(catalog, 'source-empty-directory')[0]?.file, '/specs')
  })

  test('two files claiming one service id: the later fails, naming the other', async () => {
    const catalog = await catalogOf({ 'pets.json': good, 'pets.yaml': good })
    assert.equal(catalog.tools.length, 1)
    const [problem] = problemsOf(catalog, 'service-id-duplicate')
    assert.equal(problem?.file, 'pets.yaml')
    assert.match(problem?.message ?? '', /pets\.json/)
  })

  test('a YAML alias bomb (billion laughs) is refused, not expanded', async () => {
    const lines = [
      'openapi: 3.1.0',
      'info: { title: bomb, version: "1" }',
      'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
    ]
    for (let i = 1; i < 12; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      )
    const catalog = await catalogOf({ 'bomb.yaml': `${lines.join('\n')}\npaths: {}\n`, 'good.yaml': good })
    assert.match(
      problemsOf(catalog, 'source-parse-error')[0]?.message ?? '',
      /YAML refused: Excessive alias count/,
    )
    assert.deepEqual(
      catalog.tools.map((t) => t.id),
      ['good:fine'],
    )
  })

  test('schemas nested 20,000 deep and a chain of 5,000 references: cut at a depth with a warning, no stack overflow', async () => {
    const depth = 20_000
    const deep = `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`
    const chain: Record<string, unknown> = { S5000: { type: 'string' } }
    for (let i = 0; i < 5000; i++) chain[`S${i}`] = { $ref: `#/components/schemas/S${i + 1}` }
    const cycle: Record<string, unknown> = {}
    for (let i = 0; i < 5000; i++)
      cycle[`C${i}`] = {
        type: 'object',
        properties: { next: { $ref: `#/components/schemas/C${(i + 1) % 5000}` } },
      }
    const query = (ref: string) => [{ name: 'q', in: 'query', schema: { $ref: ref } }]
    const catalog = await catalogOf({
      'deep.json': `{"openapi":"3.1.0","info":{"title":"d","version":"1"},"paths":{"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":${deep}}}},"responses":{}}}}}`,
      'chain.json': openapi(
        { '/x': { get: { operationId: 'x', parameters: query('#/components/schemas/S0'), responses: ok } } },
        { components: { schemas: chain } },
      ),
      'cycle.json': openapi(
        { '/x': { get: { operationId: 'x', parameters: query('#/components/schemas/C0'), responses: ok } } },
        { components: { schemas: cycle } },
      ),
    })
    assert.deepEqual(
      catalog.problems.filter((p) => p.severity === 'error'),
      [],
    )
    assert.deepEqual(
      catalog.tools.map((t) => t.id),
      ['chain:x', 'cycle:x', 'deep:x'],
    )
    assert.deepEqual(
      problemsOf(catalog, 'schema-too-deep').map((p) => p.file),
      ['chain.json', 'deep.json'],
    )
    assert.equal(Object.keys(toolById(catalog, 'cycle:x').inputSchema.$defs as object).length, 5000)
  })

  test('operation-level garbage is local: a non-object operation and malformed parameters do not fail the file', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          get: 'nonsense',
          post: {
            operationId: 'p',
            parameters: [
              { in: 'query' },
              { name: 'q', in: 'body' },
              'x',
              { name: 'ok', in: 'query', schema: { type: 'integer' } },
            ],
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(
      catalog.tools.map((t) => t.id),
      ['a:p'],
    )
    assert.deepEqual(Object.keys(toolById(catalog, 'a:p').inputSchema.properties as object), ['ok'])
    assert.ok(problemsOf(catalog, 'operation-invalid').length === 1)
    assert.ok(problemsOf(catalog, 'parameter-invalid').length === 3)
    assert.equal(catalog.sources[0]?.status, 'ok')
  })
})

describe('Arazzo workflows', () => {
  const tickets = openapi({
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        parameters: [{ name: 'id', in: 'path', required: true }],
        responses: ok,
      },
      patch: {
        operationId: 'updateTicket',
        parameters: [{ name: 'id', in: 'path', required: true }],
        responses: ok,
      },
    },
    '/internal': { post: { operationId: 'reindex', 'x-cli-ignore': true, responses: ok } },
  })
  const billing = openapi({
    '/invoices/{id}': {
      get: {
        operationId: 'getInvoice',
        parameters: [{ name: 'id', in: 'path', required: true }],
        responses: ok,
      },
    },
  })
  const arazzo = (steps: unknown[]) => ({
    arazzo: '1.0.1',
    info: { title: 'Flows', version: '1' },
    sourceDescriptions: [
      { name: 'tickets', url: './tickets.yaml', type: 'openapi' },
      { name: 'billing', url: './billing.yaml', type: 'openapi' },
    ],
    workflows: [{ workflowId: 'flow', summary: 'A flow', steps }],
  })

  test('steps bind to tool IDs by operationId, qualified operationId and operationPath', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': tickets,
      'billing.yaml': billing,
      'flows.arazzo.yaml': arazzo([
        { stepId: 'inv', operationId: '$sourceDescriptions.billing.getInvoice' },
        { stepId: 'get', operationId: 'getTicket' },
        { stepId: 'upd', operationPath: '{$sourceDescriptions.tickets.url}#/paths/~1tickets~1{id}/patch' },
      ]),
    })
    assert.deepEqual(
      catalog.workflows.map(({ id, workflowId, sourceId, summary, steps }) => ({
        id,
        workflowId,
        sourceId,
        summary,
        steps: steps.map(({ stepId, toolId }) => ({ stepId, toolId })),
      })),
      [
        {
          id: 'flows:flow',
          workflowId: 'flow',
          sourceId: 'flows.arazzo.yaml',
          summary: 'A flow',
          steps: [
            { stepId: 'inv', toolId: 'billing:getInvoice' },
            { stepId: 'get', toolId: 'tickets:getTicket' },
            { stepId: 'upd', toolId: 'tickets:updateTicket' },
          ],
        },
      ],
    )
  })

  test('a step naming a missing operation fails the workflow source, naming workflow, step and operation', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': tickets,
      'billing.yaml': billing,
      'flows.arazzo.yaml': arazzo([{ stepId: 'gone', operationId: 'deleteEverything' }]),
    })
    assert.deepEqual(catalog.workflows, [])
    const [problem] = problemsOf(catalog, 'workflow-operation-missing')
    assert.equal(problem?.severity, 'error')
    assert.equal(problem?.file, 'flows.arazzo.yaml')
    assert.match(problem?.message ?? '', /workflow flow, step gone: operation deleteEverything/)
    assert.equal(catalog.sources.find((s) => s.sourceId === 'flows.arazzo.yaml')?.status, 'failed')
    assert.equal(catalog.tools.length, 4, 'the specs themselves still serve')
  })

  test('a step naming an ignored operation fails the workflow source', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': tickets,
      'billing.yaml': billing,
      'flows.arazzo.yaml': arazzo([{ stepId: 'r', operationId: 'reindex' }]),
    })
    assert.deepEqual(catalog.workflows, [])
    assert.match(
      problemsOf(catalog, 'workflow-operation-ignored')[0]?.message ?? '',
      /operation reindex \(tickets:reindex\) is marked x-cli-ignore/,
    )
  })

  test('one failing workflow fails its whole file, other workflow files are untouched', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': tickets,
      'billing.yaml': billing,
      'bad.arazzo.yaml': arazzo([
        { stepId: 'gone', operationPath: '{$sourceDescriptions.tickets.url}#/paths/~1nope/get' },
      ]),
      'good.arazzo.yaml': arazzo([{ stepId: 'get', operationId: 'getTicket' }]),
    })
    assert.deepEqual(
      catalog.workflows.map((w) => w.id),
      ['good:flow'],
    )
  })
})
