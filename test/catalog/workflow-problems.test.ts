// Issue 47 "Bad input": what can be known when an Arazzo file loads is a catalog problem located
// at its pointer, and the workflow file fails alone (its workflows are no tools, the specs serve).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { catalogOf, openapi, problemsOf } from '../helpers/memory-catalog.js'

const json = { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } }
const spec = openapi({
  '/items/{id}': {
    get: {
      operationId: 'getItem',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'ok', content: json } },
    },
    delete: {
      operationId: 'deleteItem',
      'x-cli-safety': { requiresApproval: true },
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '204': { description: 'gone' } },
    },
  },
})

const step = (extra: Record<string, unknown> = {}) => ({
  stepId: 'get',
  operationId: 'getItem',
  parameters: [{ name: 'id', in: 'path', value: '$inputs.id' }],
  outputs: { id: '$response.body#/id' },
  ...extra,
})

function flows(workflow: Record<string, unknown>) {
  return {
    arazzo: '1.0.1',
    info: { title: 'Flows', version: '1' },
    sourceDescriptions: [{ name: 'items', url: './items.yaml', type: 'openapi' }],
    workflows: [
      { workflowId: 'flow', inputs: { type: 'object', properties: { id: { type: 'string' } } }, ...workflow },
    ],
  }
}

async function problemFor(workflow: Record<string, unknown>, code: string) {
  const catalog = await catalogOf({ 'items.yaml': spec, 'flows.arazzo.yaml': flows(workflow) })
  const [problem] = problemsOf(catalog, code)
  assert.ok(problem, `no ${code}: ${JSON.stringify(catalog.problems)}`)
  assert.equal(problem.severity, 'error')
  assert.equal(problem.file, 'flows.arazzo.yaml')
  assert.equal(catalog.sources.find((s) => s.sourceId === 'flows.arazzo.yaml')?.status, 'failed')
  assert.ok(!catalog.tools.some((tool) => tool.workflow), 'no workflow tool')
  assert.equal(catalog.tools.length, 2, 'the spec still serves')
  return problem
}

describe('workflow problems found at load time', () => {
  test('an expression that does not parse', async () => {
    const problem = await problemFor(
      { steps: [step({ parameters: [{ name: 'id', in: 'path', value: '$inputs.' }] })] },
      'workflow-expression-invalid',
    )
    assert.equal(problem.pointer, '/workflows/0/steps/0/parameters/0/value')
    assert.match(problem.message, /workflow flow, step get: \$inputs\. /)
  })

  test('an expression naming a step that does not exist, or an output the step lacks', async () => {
    const missing = await problemFor(
      { steps: [step()], outputs: { x: '$steps.nope.outputs.id' } },
      'workflow-expression-invalid',
    )
    assert.match(missing.message, /\$steps\.nope\.outputs\.id names step nope, which does not exist/)
    const output = await problemFor(
      { steps: [step()], outputs: { x: '$steps.get.outputs.name' } },
      'workflow-expression-invalid',
    )
    assert.match(output.message, /step get has no output name/)
  })

  test('a criterion that does not parse, and a regex with no linear-time form', async () => {
    const simple = await problemFor(
      { steps: [step({ successCriteria: [{ condition: '$statusCode == (200' }] })] },
      'workflow-criterion-invalid',
    )
    assert.equal(simple.pointer, '/workflows/0/steps/0/successCriteria/0')
    assert.match(simple.message, /has a \( without its \)/)
    const regex = await problemFor(
      {
        steps: [
          step({ successCriteria: [{ context: '$response.body#/id', condition: '(a)\\1', type: 'regex' }] }),
        ],
      },
      'workflow-criterion-invalid',
    )
    assert.match(regex.message, /no regular expression toolgate can run in linear time/)
  })

  test('a goto to a step or workflow that does not exist', async () => {
    const problem = await problemFor(
      { steps: [step({ onSuccess: [{ name: 'next', type: 'goto', stepId: 'nowhere' }] })] },
      'workflow-target-missing',
    )
    assert.equal(problem.pointer, '/workflows/0/steps/0/onSuccess/0')
    assert.match(problem.message, /action next goes to step nowhere, which does not exist/)
  })

  test('a retry on success, a retryLimit that is no whole number', async () => {
    await problemFor({ steps: [step({ onSuccess: [{ name: 'r', type: 'retry' }] })] }, 'workflow-invalid')
    const limit = await problemFor(
      { steps: [step({ onFailure: [{ name: 'r', type: 'retry', retryLimit: 1.5 }] })] },
      'workflow-invalid',
    )
    assert.match(limit.message, /retryLimit is a whole number/)
  })
})

describe('workflow tools in the catalog', () => {
  test('named in the catalog style, inputs normalized, safety and one approval from the steps', async () => {
    const catalog = await catalogOf({
      'items.yaml': spec,
      'flows.arazzo.yaml': flows({
        summary: 'Read then delete',
        steps: [
          step(),
          {
            stepId: 'drop',
            operationId: 'deleteItem',
            parameters: [{ name: 'id', in: 'path', value: '$steps.get.outputs.id' }],
          },
        ],
      }),
    })
    const tool = catalog.tools.find((t) => t.workflow)!
    assert.equal(tool.id, 'flows:flow')
    assert.equal(tool.wireName, 'flows_flow')
    assert.equal(tool.serviceId, 'flows')
    assert.equal(tool.title, 'Read then delete')
    assert.deepEqual(tool.safety, {
      readOnly: false,
      destructive: true,
      idempotent: true,
      openWorld: true,
      requiresApproval: true,
    })
    assert.match(tool.description, /One approval for the whole run covers items:deleteItem/)
    assert.deepEqual(
      tool.workflow!.steps.map((s) => [s.stepId, s.toolId, s.requiresApproval]),
      [
        ['get', 'items:getItem', false],
        ['drop', 'items:deleteItem', true],
      ],
    )
    assert.equal(catalog.services.find((s) => s.id === 'flows')?.title, 'Flows')
  })

  test('an Arazzo file named like a spec service offers no tools, with a warning', async () => {
    const catalog = await catalogOf({ 'items.yaml': spec, 'items.arazzo.yaml': flows({ steps: [step()] }) })
    assert.equal(catalog.workflows.length, 1, 'the workflow itself loads (prompts)')
    assert.ok(!catalog.tools.some((tool) => tool.workflow))
    assert.match(
      problemsOf(catalog, 'workflow-tool-clash')[0]?.message ?? '',
      /service id items is already taken/,
    )
  })
})
