// Issue 47: the Arazzo specification's own examples (test/fixtures/arazzo-spec, see SOURCES.md)
// loaded through the gateway and called as workflow tools against a real upstream that answers as
// the examples' Petstore would; the examples that do not fit end in a catalog problem or run error
// naming what is wrong.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { allHold } from '../../src/executor/workflow/criteria.js'
import {
  ABSENT,
  type RunContext,
  readExpression,
  resolveValue,
} from '../../src/executor/workflow/evaluate.js'
import { parseExpression } from '../../src/executor/workflow/expression.js'
import { configFile, testApp } from '../helpers/app.js'
import { catalogOf, MEMORY_DIR, memoryReader, problemsOf } from '../helpers/memory-catalog.js'
import { fromRoot } from '../helpers/paths.js'
import { type Received, type Responder, startUpstream } from '../helpers/upstreams.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
type Json = any

const fixture = (name: string) => readFileSync(fromRoot('test', 'fixtures', 'arazzo-spec', name), 'utf8')

/** The gateway over the named fixture files, every OpenAPI one served by one real upstream. */
async function specApp(t: Parameters<typeof startUpstream>[0], files: string[], respond: Responder) {
  const upstream = await startUpstream(t, respond)
  const services = files.filter((f) => f.endsWith('.openapi.yaml')).map((f) => f.replace(/\.yaml$/, ''))
  const config = await configFile(
    ['services:', ...services.flatMap((s) => [`  ${s}:`, `    upstream: ${upstream.url}`])].join('\n'),
  )
  const app = await testApp(
    t,
    { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config },
    memoryReader(Object.fromEntries(files.map((f) => [f, fixture(f)]))),
  )
  return { app, upstream }
}

async function run(app: FastifyInstance, name: string, args: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: `/tools/${name}`, payload: args })
  return { status: res.statusCode, body: res.json() as Json }
}

async function catalog(app: FastifyInstance) {
  return (await app.inject('/catalog')).json() as Json
}

const sent = (received: readonly Received[]) => received.map((r) => `${r.method} ${r.target}`)

const send = (res: Parameters<Responder>[1], status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

/** The Petstore as the login, pets and order examples expect it to answer. */
function petstore(): Responder {
  let orders = 0
  let busy = 1
  return (received, res) => {
    const path = received.target.split('?')[0]
    if (path === '/user/login')
      return send(res, 200, 'session-abc', {
        'x-expires-after': '2026-12-05T00:00:00Z',
        'x-rate-limit': '5000',
      })
    if (path === '/pet/findByStatus')
      return send(res, 200, [
        { id: 10, name: 'doggie', status: 'available' },
        { id: 11, name: 'kitty', status: 'available' },
      ])
    if (path === '/store/order') {
      if (busy-- > 0) return send(res, 503, { message: 'busy' })
      return send(res, 200, { id: ++orders, status: 'placed' })
    }
    send(res, 404, { message: `no ${path}` })
  }
}

describe('the Arazzo specification text examples', () => {
  test('Workflow Object Example: loginUser, query parameters from inputs, headers read into outputs', async (t) => {
    const { app, upstream } = await specApp(t, ['spec-text.arazzo.yaml', 'petstore.openapi.yaml'], petstore())
    const { status, body } = await run(app, 'spec_text_login_user', { username: 'alice', password: 's3cret' })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['GET /user/login?username=alice&password=s3cret'])
    assert.deepEqual(body.outputs, { tokenExpires: '2026-12-05T00:00:00Z' })
  })

  test('RequestBody, Payload Replacement, Criterion and Failure Action examples: placeOrder retried after 503', async (t) => {
    const { app, upstream } = await specApp(t, ['spec-text.arazzo.yaml', 'petstore.openapi.yaml'], petstore())
    const { status, body } = await run(app, 'spec_text_place_order', {
      pet_id: 10,
      coupon_code: 'SPRING',
      quantity: 2,
    })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['POST /store/order', 'POST /store/order'])
    const order = {
      petOrder: { petId: 10, couponCode: 'SPRING', quantity: 2, status: 'placed', complete: false },
      petId: 10,
      quantity: 10,
    }
    for (const request of upstream.received) assert.deepEqual(JSON.parse(request.body.toString()), order)
    assert.deepEqual(
      body.trace.map((s: Json) => [s.step, s.status, s.outcome]),
      [
        ['placeOrder', 503, 'failure'],
        ['placeOrder', 200, 'success'],
      ],
    )
    assert.deepEqual(body.outputs, { orderId: 1, sent: 'SPRING' })
  })

  test('JSONPath count() (RFC 9535) in the Criterion and Success Action examples: a catalog problem naming it', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['spec-text-count.arazzo.yaml', 'petstore.openapi.yaml'],
      petstore(),
    )
    const { workflows, problems } = await catalog(app)
    assert.deepEqual(workflows, [])
    const invalid = problems.filter((p: Json) => p.code === 'workflow-criterion-invalid')
    assert.deepEqual(
      invalid.map((p: Json) => [p.severity, p.pointer]),
      [
        ['error', '/workflows/0/steps/0/successCriteria/0'],
        ['error', '/workflows/0/steps/0/onSuccess/0/criteria/0'],
      ],
    )
    for (const problem of invalid)
      assert.match(
        problem.message,
        /^workflow findPets, step findPets: JSONPath \$\[\?count\(@\.pets\) > 0\] calls the RFC 9535 function count\(\), which toolgate's JSONPath \(jsonpath-plus\) does not evaluate$/,
      )
    assert.equal((await run(app, 'spec_text_count_find_pets', {})).status, 404)
    assert.equal(upstream.received.length, 0)
  })
})

describe('the Arazzo repository examples (examples/1.0.0)', () => {
  test('LoginAndRetrievePets as published: its remote source and path-item operationPath are catalog problems', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['LoginAndRetrievePets.arazzo.yaml', 'petstore.openapi.yaml'],
      petstore(),
    )
    const { workflows, problems } = await catalog(app)
    assert.deepEqual(workflows, [])
    const named = problems
      .filter((p: Json) => p.code.startsWith('workflow-'))
      .map((p: Json) => `${p.severity} ${p.code} ${p.pointer}: ${p.message}`)
    assert.deepEqual(named, [
      'warning workflow-source-unknown /sourceDescriptions/0: source description petStoreDescription (https://raw.githubusercontent.com/swagger-api/swagger-petstore/master/src/main/resources/openapi.yaml) is not a loaded spec',
      'error workflow-operation-missing /workflows/0/steps/0: workflow loginUserRetrievePet, step loginStep: operation $sourceDescriptions.petStoreDescription.loginUser does not exist in any loaded spec',
      'error workflow-operation-missing /workflows/0/steps/1: workflow loginUserRetrievePet, step getPetStep: operation {$sourceDescriptions.petStoreDescription.url}#/paths/~1pet~1findByStatus does not exist in any loaded spec',
    ])
    assert.equal((await run(app, 'LoginAndRetrievePets_login_user_retrieve_pet', {})).status, 404)
    assert.equal(upstream.received.length, 0)
  })

  test('LoginAndRetrievePets with a local source: login runs; the token as an Authorization parameter is a run error naming it', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['LoginAndRetrievePets.local.arazzo.yaml', 'petstore.openapi.yaml'],
      petstore(),
    )
    const { status, body } = await run(app, 'LoginAndRetrievePets_local_login_user_retrieve_pet', {
      username: 'alice',
      password: 's3cret',
    })
    assert.equal(status, 422, JSON.stringify(body))
    assert.equal(body.code, 'TG_ERR_WORKFLOW_RUN_INVALID')
    assert.equal(body.step, 'getPetStep')
    assert.match(
      body.error,
      /step getPetStep: parameter Authorization \(in header\) is not one petstore\.openapi:findPetsByStatus takes/,
    )
    assert.deepEqual(
      body.trace.map((s: Json) => [s.step, s.status, s.outcome]),
      [['loginStep', 200, 'success']],
    )
    assert.deepEqual(sent(upstream.received), ['GET /user/login?username=alice&password=s3cret'])
  })

  const coupons: Responder = (received, res) => {
    const path = received.target.split('?')[0]
    if (path === '/pet/findByTags') return send(res, 200, [{ id: 7, name: 'Dalmatian puppy' }, { id: 9 }])
    if (path === '/pet/findByStatus') return send(res, 200, [{ id: 8, name: 'doggie' }])
    if (path === '/pet/7/coupons') return send(res, 200, { id: 1, couponCode: 'PUPPY10' })
    if (path === '/store/order') return send(res, 200, { id: 42, status: 'placed' })
    send(res, 404, { message: `no ${path}` })
  }

  test('pet-coupons as published: its parameter names the operation does not take are a run error naming them', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['pet-coupons.arazzo.yaml', 'pet-coupons.openapi.yaml'],
      coupons,
    )
    const { status, body } = await run(app, 'pet_coupons_apply_coupon', { my_pet_tags: ['puppy'] })
    assert.equal(status, 422, JSON.stringify(body))
    assert.equal(body.step, 'find-pet')
    assert.match(
      body.error,
      /step find-pet: parameter pet_tags \(in query\) is not one pet-coupons\.openapi:findPetsByTags takes/,
    )
    assert.equal(upstream.received.length, 0)
  })

  test('pet-coupons apply-coupon: values carried from find-pet to find-coupons; the nested place-order stops at its unset quantity', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['pet-coupons.local.arazzo.yaml', 'pet-coupons.openapi.yaml'],
      coupons,
    )
    const { status, body } = await run(app, 'pet_coupons_local_apply_coupon', {
      my_pet_tags: ['puppy', 'dalmatian'],
    })
    assert.deepEqual(sent(upstream.received), [
      'GET /pet/findByTags?tags=puppy&tags=dalmatian',
      'GET /pet/7/coupons',
    ])
    assert.equal(status, 422, JSON.stringify(body))
    assert.equal(body.step, 'place-order/place-order')
    assert.match(body.error, /workflow place-order, step place-order: \$inputs\.quantity points at nothing/)
    assert.deepEqual(
      body.trace.map((s: Json) => [s.step, s.status, s.outcome]),
      [
        ['find-pet', 200, 'success'],
        ['find-coupons', 200, 'success'],
        ['place-order', null, 'failure'],
      ],
    )
  })

  test('pet-coupons buy-available-pet: component parameters with their values replaced, then the nested workflow', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['pet-coupons.local.arazzo.yaml', 'pet-coupons.openapi.yaml'],
      coupons,
    )
    const { status, body } = await run(app, 'pet_coupons_local_buy_available_pet', {})
    assert.deepEqual(sent(upstream.received), ['GET /pet/findByStatus?status=available&page=1&pageSize=10'])
    assert.equal(status, 422, JSON.stringify(body))
    assert.match(body.error, /workflow place-order, step place-order: \$inputs\.quantity points at nothing/)
  })

  test('pet-coupons place-order with every input: the payload built from inputs, the order ID out', async (t) => {
    const { app, upstream } = await specApp(
      t,
      ['pet-coupons.local.arazzo.yaml', 'pet-coupons.openapi.yaml'],
      coupons,
    )
    const { status, body } = await run(app, 'pet_coupons_local_place_order', {
      pet_id: 7,
      quantity: 1,
      coupon_code: 'PUPPY10',
    })
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(sent(upstream.received), ['POST /store/order'])
    assert.deepEqual(JSON.parse(upstream.received[0]!.body.toString()), {
      petId: 7,
      quantity: 1,
      couponCode: 'PUPPY10',
      status: 'placed',
      complete: false,
    })
    assert.deepEqual(body.outputs, { workflow_order_id: 42 })
  })
})

/** A context where every expression of the specification's table has a value. */
function tableContext(status = 200): RunContext {
  return {
    inputs: {
      username: 'alice',
      pet_id: 7,
      coupon_code: 'SPRING',
      quantity: 2,
      petOrderRequest: { petId: 7 },
    },
    steps: new Map([['someStepId', { pets: [{ id: 10 }, { id: 11 }] }]]),
    workflows: new Map([
      ['foo', { inputs: { username: 'bob' }, outputs: { bar: 'B', mappedResponse: { name: 'Rex' } } }],
    ]),
    components: { parameters: { foo: { name: 'foo', in: 'query', value: 1 } } },
    outputs: { bar: 'own' },
    response: {
      status,
      headers: { Server: 'petstore/1.0' },
      body: () => ({ ok: true, value: { status: 'placed', pets: [] } }),
      url: 'http://127.0.0.1/pets/42',
      method: 'GET',
      request: {
        parameters: { header: { Accept: 'application/json' }, path: { id: '42' } },
        body: { user: { uuid: 'u-1' } },
      },
    },
    where: 'workflow spec, step table',
  }
}

describe('the specification text: runtime expression examples and criterion examples', () => {
  // §4.8 "Examples": every expression of the table, and the value it has in tableContext.
  const table: [string, unknown][] = [
    ['$method', 'GET'],
    ['$request.header.accept', 'application/json'],
    ['$request.path.id', '42'],
    ['$request.body#/user/uuid', 'u-1'],
    ['$url', 'http://127.0.0.1/pets/42'],
    ['$response.body#/status', 'placed'],
    ['$response.header.Server', 'petstore/1.0'],
    ['$inputs.username', 'alice'],
    ['$workflows.foo.inputs.username', 'bob'],
    ['$steps.someStepId.outputs.pets', [{ id: 10 }, { id: 11 }]],
    ['$steps.someStepId.outputs.pets#/0/id', 10],
    ['$outputs.bar', 'own'],
    ['$workflows.foo.outputs.bar', 'B'],
    ['$workflows.foo.outputs.mappedResponse#/name', 'Rex'],
    ['$components.parameters.foo', { name: 'foo', in: 'query', value: 1 }],
  ]
  for (const [text, value] of table)
    test(`${text} parses and reads its value`, () => {
      const parsed = parseExpression(text)
      assert.ok(parsed.ok, JSON.stringify(parsed))
      assert.deepEqual(readExpression(parsed.expression, tableContext()), value)
    })

  test('an expression of the table reads nothing where the run has no such value', () => {
    const parsed = parseExpression('$workflows.foo.inputs.password')
    assert.ok(parsed.ok)
    assert.equal(readExpression(parsed.expression, tableContext()), ABSENT)
  })

  test('Criterion Object Examples: simple and regex hold on 200, not on 404', () => {
    const simple = { condition: '$statusCode == 200', type: 'simple' } as const
    const regex = { context: '$statusCode', condition: '^200$', type: 'regex' } as const
    assert.equal(allHold([simple, regex], tableContext(200)), true)
    assert.equal(allHold([simple], tableContext(404)), false)
    assert.equal(allHold([regex], tableContext(404)), false)
    assert.equal(
      allHold([{ condition: "$response.header.Server == 'PETSTORE/1.0'", type: 'simple' }], tableContext()),
      true,
      'string comparisons are case insensitive',
    )
  })

  test('RequestBody Object Examples: JSON templated, JSON object, complete runtime expression, form data string', () => {
    const context = tableContext()
    const templated =
      '{\n  "petOrder": {\n    "petId": "{$inputs.pet_id}",\n    "couponCode": "{$inputs.coupon_code}",\n    "quantity": "{$inputs.quantity}",\n    "status": "placed",\n    "complete": false\n  }\n}\n'
    assert.deepEqual(JSON.parse(resolveValue(templated, context) as string), {
      petOrder: { petId: '7', couponCode: 'SPRING', quantity: '2', status: 'placed', complete: false },
    })
    assert.deepEqual(
      resolveValue(
        {
          petOrder: {
            petId: '$inputs.pet_id',
            couponCode: '$inputs.coupon_code',
            quantity: '$inputs.quantity',
            status: 'placed',
            complete: false,
          },
        },
        context,
      ),
      { petOrder: { petId: 7, couponCode: 'SPRING', quantity: 2, status: 'placed', complete: false } },
    )
    assert.deepEqual(resolveValue('$inputs.petOrderRequest', context), { petId: 7 })
    assert.equal(
      resolveValue('client_id={$inputs.username}&grant_type=code', context),
      'client_id=alice&grant_type=code',
    )
  })
})

test('an RFC 9535 function call is refused; a member named like one, or a Goessner filter, is not', async () => {
  const document = (condition: string) =>
    fixture('spec-text-count.arazzo.yaml').replaceAll('$[?count(@.pets) > 0]', condition)
  const problems = async (condition: string) =>
    problemsOf(
      await catalogOf({
        'petstore.openapi.yaml': fixture('petstore.openapi.yaml'),
        'c.arazzo.yaml': document(condition),
      }),
      'workflow-criterion-invalid',
    ).map((p) => p.message.replace(/^.*calls the RFC 9535 function /, ''))
  for (const [condition, refused] of [
    ['$[?length(@.tags) > 1]', 'length()'],
    ["$[?match(@.name, 'R.*')]", 'match()'],
    ["$[?search(@.name, 'x')]", 'search()'],
    ['$[?value(@..id) == 10]', 'value()'],
  ] as const)
    assert.deepEqual(await problems(condition), [
      `${refused}, which toolgate's JSONPath (jsonpath-plus) does not evaluate`,
      `${refused}, which toolgate's JSONPath (jsonpath-plus) does not evaluate`,
    ])
  for (const condition of ['$[?(@.count > 0)]', "$['count']", '$..value', '$[?(@.length > 1)]'])
    assert.deepEqual(await problems(condition), [], condition)
})
