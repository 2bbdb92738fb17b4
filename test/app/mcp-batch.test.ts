// Issue 42 item 5: JSON-RPC batches on the revision that says a server MUST accept them
// (2025-03-26, whose clients send no MCP-Protocol-Version header) and refused on those that removed
// them (2025-06-18 on). Generated batches of requests and notifications, checked answer by answer.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { exampleApp } from '../helpers/app.js'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

function post(app: FastifyInstance, payload: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...HEADERS, ...headers },
    payload: JSON.stringify(payload),
  })
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC result, checked field by field
type Result = any

type Message = { jsonrpc: '2.0'; id?: number; method: string; params?: Record<string, unknown> }

/** One message of a batch and what its answer holds (undefined: a notification, no answer). */
const messageOf = fc.oneof(
  fc.constant({ method: 'tools/list', check: (result: Result) => assert.equal(result.tools.length, 22) }),
  fc.constant({ method: 'ping', check: (result: Result) => assert.deepEqual(result, {}) }),
  fc.constantFrom('T-1001', 'T-1002').map((ticketId) => ({
    method: 'tools/call',
    params: { name: 'tickets_get_ticket', arguments: { ticketId } },
    check: (result: Result) => {
      assert.equal(result.isError, false)
      assert.equal(result.structuredContent.id, ticketId)
    },
  })),
  fc.constant({
    method: 'resources/list',
    check: (result: Result) => assert.ok(result.resources.length > 0),
  }),
  fc.constant({ method: 'notifications/initialized', notification: true }),
)

describe('MCP JSON-RPC batches by revision (issue 42)', () => {
  test('property: on 2025-03-26 a batch is answered as a batch, one answer per request; notifications alone 202', async (t) => {
    const { app } = await exampleApp(t)
    await fc.assert(
      fc.asyncProperty(
        fc.array(messageOf, { minLength: 1, maxLength: 6 }),
        fc.constantFrom<Record<string, string>>({}, { 'mcp-protocol-version': '2025-03-26' }),
        async (parts, headers) => {
          const batch: Message[] = parts.map((part, index) => ({
            jsonrpc: '2.0',
            ...('notification' in part ? {} : { id: index + 1 }),
            method: part.method,
            ...('params' in part ? { params: part.params } : {}),
          }))
          const res = await post(app, batch, headers)
          const requests = parts.flatMap((part, index) => ('check' in part ? [{ id: index + 1, part }] : []))
          if (requests.length === 0) {
            assert.equal(res.statusCode, 202, res.body)
            return
          }
          assert.equal(res.statusCode, 200, res.body)
          const answers = res.json() as { id: number; result?: unknown; error?: unknown }[]
          assert.ok(Array.isArray(answers), res.body)
          assert.deepEqual(
            answers.map((answer) => answer.id).sort((a, b) => a - b),
            requests.map((r) => r.id),
          )
          for (const { id, part } of requests) {
            const answer = answers.find((a) => a.id === id)!
            assert.equal(answer.error, undefined, JSON.stringify(answer))
            part.check!(answer.result)
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  test('property: a revision that removed batches refuses them, naming the rule', async (t) => {
    const { app } = await exampleApp(t)
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28'),
        fc.integer({ min: 1, max: 5 }),
        async (version, size) => {
          const res = await post(
            app,
            Array.from({ length: size }, (_, i) => ({ ...ping, id: i + 1 })),
            {
              'mcp-protocol-version': version,
            },
          )
          assert.equal(res.statusCode, 400, res.body)
          assert.equal(res.json().error.code, -32600)
          assert.match(res.json().error.message, /batches are not supported on MCP .*2025-06-18 removed them/)
        },
      ),
      { numRuns: 15 },
    )
  })

  test('a batch that is empty, too long, holds initialize or a bad message is an Invalid Request', async (t) => {
    const { app } = await exampleApp(t)
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
    const initialize = {
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    }
    const cases: [unknown[], RegExp][] = [
      [[], /empty batch/],
      [Array.from({ length: 101 }, (_, i) => ({ ...ping, id: i })), /at most 100/],
      [[ping, initialize], /initialize may not be part of a batch/],
      [[ping, { id: 3, method: 'ping' }], /batch message 1: jsonrpc must be "2.0"/],
      [[ping, [ping]], /batch message 1: a batch may not hold a batch/],
    ]
    for (const [batch, message] of cases) {
      const res = await post(app, batch)
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().error.code, -32600)
      assert.match(res.json().error.message, message)
    }
  })
})
