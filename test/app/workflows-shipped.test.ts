// Issue 47 "Must show": the shipped support.arazzo.yaml workflows are tools on every surface and
// run against the example upstream, which sees each step's request in order with the values
// carried from one answer to the next; both branches of escalateUnpaidTicket are taken.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { startExampleUpstream } from '../../examples/upstream/server.js'
import { configFile, exampleConfigYaml, testApp } from '../helpers/app.js'
import { startRecordingProxy } from '../helpers/recording-proxy.js'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, checked field by field
type Json = any

const ESCALATE = 'support_escalate_unpaid_ticket'
const CLOSE = 'support_close_ticket'

async function shippedApp(t: { after(fn: () => Promise<unknown>): void }) {
  const upstream = await startExampleUpstream()
  t.after(() => upstream.close())
  const proxy = await startRecordingProxy(t, upstream.url)
  const app = await testApp(t, { TOOLGATE_CONFIG: await configFile(exampleConfigYaml(proxy.url)) })
  return { app, seen: proxy.seen }
}

type Caller = (
  app: FastifyInstance,
  name: string,
  args: Record<string, unknown>,
) => Promise<{ ok: boolean; body: Json }>

const rest: Caller = async (app, name, args) => {
  const res = await app.inject({ method: 'POST', url: `/tools/${name}`, payload: args })
  return { ok: res.statusCode === 200, body: res.json() }
}
const opal: Caller = async (app, name, args) => {
  const res = await app.inject({
    method: 'POST',
    url: `/discovery/tools/${name}`,
    payload: { parameters: args, environment: {} },
  })
  return { ok: res.statusCode === 200, body: res.json() }
}
const mcp: Caller = async (app, name, args) => {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  })
  const message = JSON.parse(res.body.startsWith('{') ? res.body : /^data: (.*)$/m.exec(res.body)![1]!)
  assert.equal(message.error, undefined, res.body.slice(0, 300))
  const result = message.result
  return { ok: result.isError !== true, body: result.structuredContent ?? JSON.parse(result.content[0].text) }
}

describe('the shipped support workflows as tools', () => {
  test('listed on every surface, described by summary and steps, safety from the steps', async (t) => {
    const { app } = await shippedApp(t)
    const discovery = (await app.inject('/discovery')).json()
    const names = (list: { name: string }[]) => list.map((tool) => tool.name)
    assert.ok(names(discovery.functions).includes(ESCALATE), 'Opal discovery')
    const openai = (await app.inject('/openai.json')).json()
    const fn = openai.find((tool: Json) => tool.function.name === ESCALATE)
    assert.ok(fn, '/openai.json')
    assert.match(fn.function.description, /Note an unpaid invoice on a ticket/)
    assert.deepEqual(fn.function.parameters.required, ['ticketId', 'invoiceId'])
    const strict = (await app.inject('/openai.json?strict=true')).json()
    const strictFn = strict.find((tool: Json) => tool.function.name === ESCALATE)
    assert.equal(strictFn.function.strict, true, 'strict-ready')
    assert.deepEqual(Object.keys(strictFn.function.parameters.properties).sort(), [
      'invoiceId',
      'note',
      'ticketId',
    ])
    const claude = (await app.inject('/claude.json')).json()
    assert.ok(
      claude.some((tool: Json) => tool.name === CLOSE),
      '/claude.json',
    )
    const list = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    const tools = JSON.parse(list.body.startsWith('{') ? list.body : /^data: (.*)$/m.exec(list.body)![1]!)
      .result.tools
    const listed = tools.find((tool: Json) => tool.name === ESCALATE)
    assert.ok(listed, 'MCP tools/list')
    assert.equal(listed.annotations.readOnlyHint, false)
    assert.equal(listed.annotations.destructiveHint, false)
    assert.deepEqual(Object.keys(listed.outputSchema.properties.outputs.properties), [
      'invoiceStatus',
      'amountDue',
      'commentId',
    ])
    // Typed where a step output reads a typed answer by pointer: amount_due is a number in billing.json.
    assert.deepEqual(listed.outputSchema.properties.outputs.properties.amountDue, {
      type: ['number', 'null'],
    })
    const search = (await app.inject('/tools/search?q=unpaid+invoice+ticket+comment')).json()
    assert.ok(JSON.stringify(search).includes(ESCALATE), 'search')
    const page = (await app.inject(`/explorer/api/tools/${ESCALATE}`)).json()
    assert.deepEqual(
      page.workflow.steps.map((step: Json) => [step.stepId, step.toolId]),
      [
        ['getInvoice', 'billing:getInvoice'],
        ['getTicket', 'tickets:getTicket'],
        ['addComment', 'tickets:addComment'],
      ],
    )
  })

  for (const [surface, call] of Object.entries({
    'POST /tools': rest,
    "Opal's envelope": opal,
    'MCP tools/call': mcp,
  })) {
    test(`${surface}: escalateUnpaidTicket on an unpaid invoice runs all three steps, values carried`, async (t) => {
      const { app, seen } = await shippedApp(t)
      const { ok, body } = await call(app, ESCALATE, { ticketId: 'T-1001', invoiceId: 'INV-2001' })
      assert.ok(ok, JSON.stringify(body))
      assert.deepEqual(
        seen.map((r) => `${r.method} ${r.target.split('?')[0]}`),
        [
          'GET /billing/invoices/INV-2001',
          'GET /tickets/tickets/T-1001',
          'POST /tickets/tickets/T-1001/comments',
        ],
      )
      const comment = JSON.parse(seen[2]!.body)
      assert.equal(comment.internal, true)
      assert.equal(
        comment.body,
        'Invoice INV-2001 is still open: 49 EUR due. Please follow up with the customer.',
      )
      assert.equal(body.outputs.invoiceStatus, 'open')
      assert.equal(body.outputs.amountDue, 49)
      assert.match(body.outputs.commentId, /^C-\d+$/)
      assert.deepEqual(
        body.trace.map((s: Json) => [s.step, s.tool, s.status, s.outcome]),
        [
          ['getInvoice', 'billing_get_invoice', 200, 'success'],
          ['getTicket', 'tickets_get_ticket', 200, 'success'],
          ['addComment', 'tickets_add_comment', 201, 'success'],
        ],
      )
      assert.ok(body.trace.every((s: Json) => typeof s.durationMs === 'number' && !('body' in s)))
      assert.deepEqual(body.sideEffects, [{ step: 'addComment', tool: 'tickets_add_comment', status: 201 }])
    })
  }

  test('escalateUnpaidTicket on a paid invoice ends after the first step (the other branch)', async (t) => {
    const { app, seen } = await shippedApp(t)
    const { ok, body } = await rest(app, ESCALATE, { ticketId: 'T-1001', invoiceId: 'INV-2002' })
    assert.ok(ok, JSON.stringify(body))
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.target.split('?')[0]}`),
      ['GET /billing/invoices/INV-2002'],
    )
    assert.deepEqual(body.outputs, { invoiceStatus: 'paid', amountDue: 0 })
    assert.deepEqual(body.sideEffects, [])
  })

  test('closeTicket reads then closes; the upstream sees the resolution; outputs carry both statuses', async (t) => {
    const { app, seen } = await shippedApp(t)
    const { ok, body } = await mcp(app, CLOSE, { ticketId: 'T-1002', resolution: 'Reset the password' })
    assert.ok(ok, JSON.stringify(body))
    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.target.split('?')[0]}`),
      ['GET /tickets/tickets/T-1002', 'PATCH /tickets/tickets/T-1002'],
    )
    assert.deepEqual(JSON.parse(seen[1]!.body), { status: 'closed', resolution: 'Reset the password' })
    assert.equal(body.outputs.status, 'closed')
    assert.equal(typeof body.outputs.previousStatus, 'string')
  })

  test('a failed step ends the run naming the step, its status and the upstream error', async (t) => {
    const { app, seen } = await shippedApp(t)
    const res = await app.inject({
      method: 'POST',
      url: `/tools/${ESCALATE}`,
      payload: { ticketId: 'T-9999', invoiceId: 'INV-2001' },
    })
    assert.equal(res.statusCode, 502)
    const body = res.json()
    assert.equal(body.code, 'TG_ERR_WORKFLOW_STEP_FAILED')
    assert.equal(body.step, 'getTicket')
    assert.equal(body.status, 404)
    assert.ok(body.upstreamError, 'the upstream error is passed on')
    assert.match(body.error, /step getTicket failed \(status 404\)/)
    assert.equal(seen.length, 2, 'nothing after the failed step')
    assert.deepEqual(body.sideEffects, [])
  })

  test('a client may call a workflow only when it may call every step tool', async (t) => {
    const upstream = await startExampleUpstream()
    t.after(() => upstream.close())
    const clients = [
      'clients:',
      '  - { id: tickets-only, token: { value: tickets-only-token-0001 }, tools: ["tickets:*", "support:*"] }',
      '  - { id: everything, token: { value: everything-token-000002 }, tools: ["*"] }',
    ].join('\n')
    const app = await testApp(t, {
      TOOLGATE_CONFIG: await configFile(exampleConfigYaml(upstream.url, clients)),
    })
    const call = (token: string) =>
      app.inject({
        method: 'POST',
        url: `/tools/${ESCALATE}`,
        headers: { authorization: `Bearer ${token}` },
        payload: { ticketId: 'T-1001', invoiceId: 'INV-2002' },
      })
    const refused = await call('tickets-only-token-0001')
    assert.equal(refused.statusCode, 403)
    assert.match(refused.json().error, /billing_get_invoice/)
    assert.equal((await call('everything-token-000002')).statusCode, 200)
  })

  test('dry run: the first step request from the inputs, and the steps that may follow', async (t) => {
    const { app, seen } = await shippedApp(t)
    const res = await app.inject({
      method: 'POST',
      url: `/tools/${ESCALATE}?dryRun=true`,
      payload: { ticketId: 'T-1001', invoiceId: 'INV-2001' },
    })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.request.method, 'GET')
    assert.match(body.request.url, /\/billing\/invoices\/INV-2001/)
    assert.equal(body.workflow.firstStep, 'getInvoice')
    assert.deepEqual(body.workflow.mayFollow, ['getTicket'])
    assert.deepEqual(
      body.workflow.steps.map((s: Json) => s.stepId),
      ['getInvoice', 'getTicket', 'addComment'],
    )
    assert.equal(seen.length, 0, 'nothing sent')
  })
})
