// Issue 47: each Arazzo construct the runner follows, against a real upstream that records what
// it is sent — values carried between steps, payload replacements, regex and JSONPath criteria,
// retry with retryAfter and retryLimit, goto loops ending at the step bound, nested workflows,
// dependsOn, the deadline, and the run errors that name the step and the expression.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { configFile, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader } from '../helpers/memory-catalog.js'
import { type Received, startUpstream } from '../helpers/upstreams.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
type Json = any

const json = { 'application/json': { schema: { type: 'object' } } }
const PETS = {
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1' },
  paths: {
    '/pets/{id}': {
      get: {
        operationId: 'getPet',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'a pet', content: json } },
      },
      delete: {
        operationId: 'deletePet',
        'x-cli-safety': { requiresApproval: true },
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'gone' } },
      },
    },
    '/orders': {
      post: {
        operationId: 'createOrder',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  petId: { type: 'string' },
                  quantity: { type: 'integer' },
                  note: { type: 'string' },
                },
              },
            },
          },
        },
        responses: { '201': { description: 'made', content: json } },
      },
    },
    '/flaky': {
      get: { operationId: 'flaky', responses: { '200': { description: 'ok', content: json } } },
    },
    '/text': {
      get: {
        operationId: 'getText',
        responses: {
          '200': { description: 'text', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    '/slow': {
      get: { operationId: 'slow', responses: { '200': { description: 'ok', content: json } } },
    },
  },
}

const getPet = (id: string) => ({
  stepId: 'getPet',
  operationId: 'getPet',
  parameters: [{ name: 'id', in: 'path', value: id }],
  successCriteria: [{ condition: '$statusCode == 200' }],
  outputs: { name: '$response.body#/name', tag: '$response.body#/tags/0' },
})

const FLOWS = {
  arazzo: '1.0.1',
  info: { title: 'Pet flows', version: '1' },
  sourceDescriptions: [{ name: 'pets', url: './pets.yaml', type: 'openapi' }],
  workflows: [
    {
      workflowId: 'orderPet',
      summary: 'Order a pet by ID',
      inputs: {
        type: 'object',
        required: ['petId'],
        properties: { petId: { type: 'string' }, quantity: { type: 'integer', default: 1 } },
      },
      steps: [
        getPet('$inputs.petId'),
        {
          stepId: 'order',
          operationId: 'createOrder',
          requestBody: {
            contentType: 'application/json',
            payload: { petId: '$inputs.petId', quantity: 0, note: 'for {$steps.getPet.outputs.name}' },
            replacements: [{ target: '/quantity', value: '$inputs.quantity' }],
          },
          successCriteria: [
            { condition: '$statusCode == 201' },
            { context: '$response.body#/id', condition: '^ORD-[0-9]+$', type: 'regex' },
            { context: '$response.body', condition: "$[?(@ == 'placed')]", type: 'jsonpath' },
          ],
          outputs: { orderId: '$response.body#/id' },
        },
      ],
      outputs: { orderId: '$steps.order.outputs.orderId', petName: '$steps.getPet.outputs.name' },
    },
    {
      workflowId: 'retrying',
      steps: [
        {
          stepId: 'flaky',
          operationId: 'flaky',
          successCriteria: [{ condition: '$statusCode == 200' }],
          onFailure: [
            {
              name: 'again',
              type: 'retry',
              retryAfter: 0.05,
              retryLimit: 3,
              criteria: [{ condition: '$statusCode == 503' }],
            },
          ],
          outputs: { attempt: '$response.body#/attempt' },
        },
      ],
      outputs: { attempt: '$steps.flaky.outputs.attempt' },
    },
    {
      workflowId: 'looping',
      steps: [{ ...getPet('p1'), onSuccess: [{ name: 'again', type: 'goto', stepId: 'getPet' }] }],
    },
    {
      workflowId: 'nested',
      inputs: { type: 'object', properties: { petId: { type: 'string' } } },
      steps: [
        {
          stepId: 'inner',
          workflowId: 'orderPet',
          parameters: [
            { name: 'petId', value: '$inputs.petId' },
            { name: 'quantity', value: 2 },
          ],
          outputs: { orderId: '$outputs.orderId' },
        },
      ],
      outputs: { orderId: '$steps.inner.outputs.orderId' },
    },
    {
      workflowId: 'afterOrder',
      dependsOn: ['orderPet'],
      inputs: { type: 'object', properties: { petId: { type: 'string' } } },
      steps: [getPet('$inputs.petId')],
      outputs: {
        orderId: '$workflows.orderPet.outputs.orderId',
        orderedPet: '$workflows.orderPet.inputs.petId',
        name: '$steps.getPet.outputs.name',
      },
    },
    {
      workflowId: 'pointerIntoText',
      steps: [{ stepId: 'read', operationId: 'getText', outputs: { first: '$response.body#/first' } }],
    },
    {
      workflowId: 'holeInRequest',
      steps: [getPet('$inputs.missing')],
    },
    {
      workflowId: 'removePet',
      inputs: { type: 'object', properties: { petId: { type: 'string' } } },
      steps: [
        getPet('$inputs.petId'),
        {
          stepId: 'remove',
          operationId: 'deletePet',
          parameters: [{ name: 'id', in: 'path', value: '$inputs.petId' }],
        },
      ],
    },
    {
      workflowId: 'readsEverything',
      steps: [
        {
          stepId: 'pet',
          operationId: 'getPet',
          parameters: [{ reference: '$components.parameters.firstPet' }],
          outputs: { url: '$url', method: '$method', sent: '$request.path.id' },
        },
        {
          stepId: 'order',
          operationId: 'createOrder',
          requestBody: {
            payload: {
              petId: '$steps.pet.outputs.sent',
              quantity: '$components.inputs.order.properties.quantity.default',
            },
          },
          successCriteria: [{ condition: '$statusCode == 201 && $response.header.Location != null' }],
          outputs: { location: '$response.header.location', quantity: '$request.body#/quantity' },
        },
      ],
      outputs: {
        url: '$steps.pet.outputs.url',
        method: '$steps.pet.outputs.method',
        location: '$steps.order.outputs.location',
        quantity: '$steps.order.outputs.quantity',
      },
    },
    {
      workflowId: 'selfNested',
      steps: [{ stepId: 'again', workflowId: 'selfNested' }],
    },
    {
      workflowId: 'hostilePath',
      steps: [
        {
          ...getPet('p1'),
          successCriteria: [
            {
              context: '$response.body',
              condition: "$[?(@.constructor.constructor('return process')())]",
              type: 'jsonpath',
            },
          ],
        },
      ],
    },
    {
      workflowId: 'slowRun',
      steps: [{ stepId: 'wait', operationId: 'slow' }],
    },
  ],
  components: {
    parameters: { firstPet: { name: 'id', in: 'path', value: 'p1' } },
    inputs: { order: { type: 'object', properties: { quantity: { type: 'integer', default: 7 } } } },
  },
}

/** The upstream: pets, orders, a flaky endpoint that answers 503 twice, text, and a slow endpoint. */
async function flowsApp(t: { after(fn: () => Promise<unknown>): void }, extra = '') {
  let flakyCalls = 0
  let orders = 0
  const upstream = await startUpstream(t, async (received: Received, res) => {
    const path = received.target.split('?')[0]!
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (received.method === 'DELETE') {
      res.writeHead(204)
      res.end()
      return
    }
    if (path.startsWith('/pets/')) {
      const id = decodeURIComponent(path.slice('/pets/'.length))
      return id === 'p1'
        ? send(200, { id, name: 'Rex', tags: ['dog'] })
        : send(404, { message: `no pet ${id}` })
    }
    if (path === '/orders') {
      const id = `ORD-${++orders}`
      res.writeHead(201, { 'content-type': 'application/json', location: `/orders/${id}` })
      res.end(JSON.stringify({ id, state: 'placed' }))
      return
    }
    if (path === '/flaky')
      return ++flakyCalls <= 2 ? send(503, { message: 'busy' }) : send(200, { attempt: flakyCalls })
    if (path === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('hello')
      return
    }
    if (path === '/slow')
      return new Promise<void>((resolve) => setTimeout(resolve, 2_000)).then(() => send(200, {}))
    send(404, {})
  })
  const config = await configFile(['services:', '  pets:', `    upstream: ${upstream.url}`, extra].join('\n'))
  const app = await testApp(
    t,
    { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config },
    memoryReader({ 'pets.yaml': PETS, 'flows.arazzo.yaml': FLOWS }),
  )
  return { app, upstream }
}

async function run(app: FastifyInstance, name: string, args: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: `/tools/${name}`, payload: args })
  return { status: res.statusCode, body: res.json() as Json }
}

const sent = (received: readonly Received[]) => received.map((r) => `${r.method} ${r.target}`)

describe('the workflow runner against a real upstream', () => {
  test('values carried, replacements applied, regex and JSONPath criteria, inputs defaults', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_order_pet', { petId: 'p1', quantity: 3 })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['GET /pets/p1', 'POST /orders'])
    assert.deepEqual(JSON.parse(upstream.received[1]!.body.toString()), {
      petId: 'p1',
      quantity: 3,
      note: 'for Rex',
    })
    assert.deepEqual(body.outputs, { orderId: 'ORD-1', petName: 'Rex' })
    const defaulted = await run(app, 'flows_order_pet', { petId: 'p1' })
    assert.equal(defaulted.status, 200)
    assert.equal(JSON.parse(upstream.received[3]!.body.toString()).quantity, 1, 'the inputs default')
  })

  test('a criterion that does not hold fails the step: the run names it and lists the side effects made', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_order_pet', { petId: 'p2' })
    assert.equal(status, 502)
    assert.equal(body.step, 'getPet')
    assert.equal(body.status, 404)
    assert.deepEqual(body.upstreamError, { message: 'no pet p2' })
    assert.equal(upstream.received.length, 1)
  })

  test('retry with retryAfter and retryLimit: the upstream is asked again until it answers', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_retrying', {})
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['GET /flaky', 'GET /flaky', 'GET /flaky'])
    assert.deepEqual(body.outputs, { attempt: 3 })
    assert.deepEqual(
      body.trace.map((s: Json) => [s.step, s.status, s.outcome]),
      [
        ['flaky', 503, 'failure'],
        ['flaky', 503, 'failure'],
        ['flaky', 200, 'success'],
      ],
    )
  })

  test('a goto loop ends at the step bound with 508 and the steps run', async (t) => {
    const { app, upstream } = await flowsApp(t, 'workflows: { maxSteps: 5 }')
    const { status, body } = await run(app, 'flows_looping', {})
    assert.equal(status, 508)
    assert.equal(body.code, 'TG_ERR_WORKFLOW_STEP_LIMIT')
    assert.equal(body.trace.length, 5)
    assert.equal(upstream.received.length, 5)
  })

  test('a nested workflow runs with its parameters as inputs; its outputs come back', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_nested', { petId: 'p1' })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['GET /pets/p1', 'POST /orders'])
    assert.equal(JSON.parse(upstream.received[1]!.body.toString()).quantity, 2)
    assert.deepEqual(body.outputs, { orderId: 'ORD-1' })
    assert.deepEqual(
      body.trace.map((s: Json) => s.step),
      ['inner/getPet', 'inner/order', 'inner'],
    )
  })

  test('dependsOn runs the other workflow first; $workflows reads its outputs', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_after_order', { petId: 'p1' })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['GET /pets/p1', 'POST /orders', 'GET /pets/p1'])
    assert.deepEqual(body.outputs, { orderId: 'ORD-1', orderedPet: 'p1', name: 'Rex' })
  })

  test('a pointer into an answer that is not JSON: a run error naming step and expression', async (t) => {
    const { app } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_pointer_into_text', {})
    assert.equal(status, 422)
    assert.equal(body.code, 'TG_ERR_WORKFLOW_RUN_INVALID')
    assert.match(body.error, /step read/)
    assert.match(
      body.error,
      /\$response\.body#\/first cannot be read: the answer is not JSON but text\/plain/,
    )
  })

  test('an expression that points at nothing is never sent: a run error naming it', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_hole_in_request', {})
    assert.equal(status, 422)
    assert.match(body.error, /step getPet: \$inputs\.missing points at nothing/)
    assert.equal(upstream.received.length, 0)
  })

  test('JSONPath runs in the safe evaluator: code in a filter is a run error, never run', async (t) => {
    const { app } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_hostile_path', {})
    assert.equal(status, 422, JSON.stringify(body))
    assert.match(body.error, /step getPet, criterion .*: the JSONPath cannot be evaluated/)
  })

  test('one approval for the run: refused naming the steps that need it, then every step runs', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const refused = await run(app, 'flows_remove_pet', { petId: 'p1' })
    assert.equal(refused.status, 403)
    assert.equal(refused.body.code, 'TG_ERR_WORKFLOW_APPROVAL_REQUIRED')
    assert.deepEqual(refused.body.steps, ['remove (pets:deletePet)'])
    assert.equal(upstream.received.length, 0)
    const res = await app.inject({
      method: 'POST',
      url: '/tools/flows_remove_pet',
      headers: { 'x-toolgate-approval': 'flows_remove_pet' },
      payload: { petId: 'p1' },
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(sent(upstream.received), ['GET /pets/p1', 'DELETE /pets/p1'])
    assert.deepEqual(res.json().sideEffects, [{ step: 'remove', tool: 'pets_delete_pet', status: 204 }])
  })

  test('$url, $method, $request, $response.header and $components (parameters by reference, inputs)', async (t) => {
    const { app, upstream } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_reads_everything', {})
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['GET /pets/p1', 'POST /orders'])
    assert.deepEqual(JSON.parse(upstream.received[1]!.body.toString()), { petId: 'p1', quantity: 7 })
    assert.deepEqual(body.outputs, {
      url: `${upstream.url}/pets/p1`,
      method: 'GET',
      location: '/orders/ORD-1',
      quantity: 7,
    })
  })

  test('a workflow that nests itself ends at the depth bound with a run error, never a loop', async (t) => {
    const { app } = await flowsApp(t)
    const { status, body } = await run(app, 'flows_self_nested', {})
    assert.equal(status, 422, JSON.stringify(body))
    assert.match(body.error, /workflows nest deeper than 4/)
  })

  test('the run deadline stops a slow step with 504', async (t) => {
    const { app } = await flowsApp(t, 'workflows: { deadlineMs: 200 }')
    const { status, body } = await run(app, 'flows_slow_run', {})
    assert.equal(status, 504, JSON.stringify(body))
    assert.equal(body.code, 'TG_ERR_WORKFLOW_DEADLINE')
    assert.equal(body.step, 'wait')
  })

  test('traceBodies: the operator lets the trace carry the answers', async (t) => {
    const { app } = await flowsApp(t, 'workflows: { traceBodies: true }')
    const { body } = await run(app, 'flows_order_pet', { petId: 'p1' })
    assert.deepEqual(body.trace[0].body, { id: 'p1', name: 'Rex', tags: ['dog'] })
  })
})
