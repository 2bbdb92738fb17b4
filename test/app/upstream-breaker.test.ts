// Issue 41 class 5: one caller cannot switch an upstream off for the others. Two clients with
// their own tokens call two tools of one real upstream, over REST and MCP, in generated orders:
// 502/503/504 answers and timeouts open only the (tool, client) circuit that earned them; an
// upstream nobody can reach (connection reset, refused) opens its origin's circuit for everyone.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { configFile, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'
import { closedPort, startUpstream } from '../helpers/upstreams.js'

fc.configureGlobal({ includeErrorInReport: true })

const TOKENS = { a: 'client-a-token-000000001', b: 'client-b-token-000000002' } as const
type Client = keyof typeof TOKENS
const THRESHOLD = 3
const TIMEOUT_MS = 250

/** `flaky` answers what its `mode` argument asks: a tool whose failures depend on its input. */
const spec = openapi({
  '/flaky': {
    get: {
      operationId: 'flaky',
      parameters: [{ name: 'mode', in: 'query', required: true, schema: { type: 'string' } }],
      responses: ok,
    },
  },
  '/healthy': { get: { operationId: 'healthy', responses: ok } },
})

const MODES = ['200', '500', '502', '503', '504', 'slow', 'reset'] as const
type Mode = (typeof MODES)[number]

async function gateway(t: Parameters<typeof testApp>[0], upstream: string): Promise<FastifyInstance> {
  const config = await configFile(
    [
      `upstream: { breaker: { failureThreshold: ${THRESHOLD}, cooldownMs: 60000 } }`,
      'clients:',
      ...Object.entries(TOKENS).flatMap(([id, token]) => [
        `  - id: ${id}`,
        `    token: { value: ${token} }`,
        '    tools: ["s:*"]',
      ]),
      'services:',
      '  s:',
      `    upstream: ${upstream}`,
      `    timeoutMs: ${TIMEOUT_MS}`,
    ].join('\n'),
  )
  return testApp(t, { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config }, memoryReader({ 's.yaml': spec }))
}

interface Seen {
  /** The HTTP status (REST) or the status the MCP result's text names. */
  readonly status: number
  readonly text: string
}

async function callTool(
  app: FastifyInstance,
  surface: 'rest' | 'mcp',
  client: Client,
  tool: 'flaky' | 'healthy',
  mode: Mode,
): Promise<Seen> {
  const args = tool === 'flaky' ? { mode } : {}
  const authorization = `Bearer ${TOKENS[client]}`
  if (surface === 'rest') {
    const res = await app.inject({
      method: 'POST',
      url: `/tools/s_${tool}`,
      headers: { authorization },
      payload: args,
    })
    return { status: res.statusCode, text: res.body }
  }
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: `s_${tool}`, arguments: args } },
  })
  const body = res.body.startsWith('{') ? res.body : /^data: (.*)$/m.exec(res.body)![1]!
  const result = JSON.parse(body).result as { isError: boolean; content: { text: string }[] }
  const text = result.content[0]!.text
  const status = !result.isError
    ? 200
    : /paused/.test(text)
      ? 503
      : /did not answer in time/.test(text)
        ? 504
        : /unreachable/.test(text)
          ? 502
          : Number(/Upstream answered HTTP (\d+)/.exec(text)?.[1])
  return { status, text }
}

/** What the gateway must answer, by a model of the two circuits the issue asks for. */
class Model {
  private originFailures = 0
  private readonly callerFailures = new Map<string, number>()

  expect(client: Client, tool: string, mode: Mode): { status: number; sent: boolean; pattern: RegExp } {
    const key = `${tool} ${client}`
    if (this.originFailures >= THRESHOLD)
      return { status: 503, sent: false, pattern: /is failing; calls are paused/ }
    if ((this.callerFailures.get(key) ?? 0) >= THRESHOLD)
      return { status: 503, sent: false, pattern: new RegExp(`kept failing tool s_${tool} for this client`) }
    if (mode === 'reset') {
      this.originFailures++
      return { status: 502, sent: true, pattern: /unreachable/ }
    }
    if (mode === 'slow') {
      this.callerFailures.set(key, (this.callerFailures.get(key) ?? 0) + 1)
      return { status: 504, sent: true, pattern: /did not answer in time/ }
    }
    this.originFailures = 0
    const status = Number(mode)
    if (status >= 502) this.callerFailures.set(key, (this.callerFailures.get(key) ?? 0) + 1)
    else this.callerFailures.delete(key)
    return { status, sent: true, pattern: /./ }
  }
}

const step = fc.record({
  surface: fc.constantFrom('rest' as const, 'mcp' as const),
  client: fc.constantFrom<Client>('a', 'b'),
  tool: fc.constantFrom('flaky' as const, 'flaky' as const, 'healthy' as const),
  mode: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<Mode>('200', '500', '502', '503', '504') },
    { weight: 1, arbitrary: fc.constantFrom<Mode>('slow', 'reset') },
  ),
})

test('generated calls of two clients and two tools: 5xx answers and timeouts pause only their own (tool, client)', async (t) => {
  const upstream = await startUpstream(t, async (received, res) => {
    const mode = (new URL(received.target, 'http://x').searchParams.get('mode') ?? '200') as Mode
    if (mode === 'reset') return void res.socket?.destroy()
    if (mode === 'slow') return void (await new Promise((resolve) => res.once('close', resolve)))
    res.writeHead(Number(mode), { 'content-type': 'application/json' })
    res.end(`{"mode":"${mode}"}`)
  })
  let runs = 0
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 24 }), async (steps) => {
      runs++
      // A fresh gateway per sequence: its circuits start closed.
      const app = await gateway(t, upstream.url)
      try {
        const model = new Model()
        for (const [i, { surface, client, tool, mode }] of steps.entries()) {
          const effective: Mode = tool === 'healthy' ? '200' : mode
          const expected = model.expect(client, tool, effective)
          const before = upstream.received.length
          const seen = await callTool(app, surface, client, tool, effective)
          const label = `step ${i} ${surface} ${client} ${tool} ${effective}: ${seen.status} ${seen.text.slice(0, 240)}`
          assert.equal(seen.status, expected.status, label)
          assert.match(seen.text, expected.pattern, label)
          if (!expected.sent) assert.equal(upstream.received.length, before, `sent while open: ${label}`)
        }
      } finally {
        await app.close()
      }
    }),
    { numRuns: 40 },
  )
  assert.equal(runs >= 40, true)
})

test("client A's failing calls never make client B's calls fail fast; a dead upstream pauses everyone", async (t) => {
  const upstream = await startUpstream(t, (received, res) => {
    const failing = received.target.startsWith('/flaky')
    res.writeHead(failing ? 503 : 200, { 'content-type': 'application/json' })
    res.end('{}')
  })
  const app = await gateway(t, upstream.url)
  for (let i = 0; i < THRESHOLD * 3; i++)
    assert.equal((await callTool(app, 'rest', 'a', 'flaky', '503')).status, 503)
  const paused = await callTool(app, 'rest', 'a', 'flaky', '503')
  assert.match(paused.text, /TG_ERR_UPSTREAM_TOOL_PAUSED/)
  assert.match(paused.text, /kept failing tool s_flaky for this client/)
  // B's calls of the failing tool reach the upstream (its 503 relayed, not a pause), and the
  // healthy tool answers both clients.
  assert.doesNotMatch((await callTool(app, 'rest', 'b', 'flaky', '503')).text, /paused/)
  assert.equal((await callTool(app, 'rest', 'b', 'healthy', '200')).status, 200)
  assert.equal((await callTool(app, 'mcp', 'a', 'healthy', '200')).status, 200)

  const dead = await gateway(t, `http://127.0.0.1:${await closedPort()}`)
  for (let i = 0; i < THRESHOLD; i++) {
    const refused = await callTool(dead, 'rest', 'a', 'flaky', '200')
    assert.equal(refused.status, 502)
    assert.match(refused.text, /TG_ERR_UPSTREAM_UNREACHABLE/)
  }
  for (const client of ['a', 'b'] as const) {
    for (const tool of ['flaky', 'healthy'] as const) {
      const open = await callTool(dead, 'rest', client, tool, '200')
      assert.equal(open.status, 503, open.text)
      assert.match(open.text, /is failing; calls are paused for \d+ s/)
    }
  }
})
