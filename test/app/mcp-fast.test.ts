// Issue 20, the MCP fast path: a 2026-07-28 server/discover, tools/list or tools/call answered
// without the SDK answers the bytes, status and headers the SDK path answers for the same request.
// Two gateways on the same config, one forced through the SDK (mcpSdkOnly), are asked the same
// requests; the fast one must have taken its fast path (a Content-Length where the SDK streams
// chunks) where the request is on it, and the SDK's path everywhere else.
import assert from 'node:assert/strict'
import { copyFile, mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { startExampleUpstream } from '../../examples/upstream/server.js'
import { sameJson } from '../../plugins/mcp-fast.js'
import { buildApp } from '../../src/app.js'
import type { SourceReader } from '../../src/catalog/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { nestsDeeperThan } from '../../src/executor/index.js'
import { configFile, exampleConfigYaml } from '../helpers/app.js'
import { startAuthServer } from '../helpers/auth-server.js'
import { MEMORY_DIR, memoryReader, openapi } from '../helpers/memory-catalog.js'
import { fromRoot } from '../helpers/paths.js'
import { startUpstream } from '../helpers/upstreams.js'

type After = { after(fn: () => Promise<unknown>): void }

interface Twins {
  readonly fast: FastifyInstance
  readonly sdk: FastifyInstance
}

const MODERN = '2026-07-28'
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'toolgate-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

/** The same gateway twice: as it ships, and with every MCP request through the SDK. */
async function twins(t: After, env: Record<string, string> = {}, reader?: SourceReader): Promise<Twins> {
  const build = async (mcpSdkOnly: boolean) => {
    const config = await loadConfig({ SPECS_DIR: fromRoot('specs'), LOG_LEVEL: 'silent', ...env }, (path) =>
      readFile(path, 'utf8'),
    )
    const app = await buildApp({ config, mcpSdkOnly, ...(reader ? { reader } : {}) })
    t.after(() => app.close())
    return app
  }
  return { fast: await build(false), sdk: await build(true) }
}

/** Twins over the shipped specs with the example upstream, configured as exampleApp does. */
async function exampleTwins(t: After, extraYaml = '') {
  const upstream = await startExampleUpstream()
  t.after(() => upstream.close())
  const file = await configFile(exampleConfigYaml(upstream.url, extraYaml))
  return twins(t, { TOOLGATE_CONFIG: file })
}

interface Ask {
  readonly method: string
  readonly params?: Record<string, unknown>
  /** Absent: 1. `null`: no id at all (a notification). */
  readonly id?: unknown
  readonly query?: string
  readonly headers?: Record<string, string | undefined>
  readonly meta?: unknown
}

function send(app: FastifyInstance, ask: Ask) {
  const name = ask.params?.name
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': ask.method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-request-id': 'mcp-fast-test',
  }
  for (const [key, value] of Object.entries(ask.headers ?? {}))
    if (value === undefined) delete headers[key]
    else headers[key] = value
  const id = ask.id === undefined ? { id: 1 } : ask.id === null ? {} : { id: ask.id }
  const meta = ask.meta === undefined ? { _meta: META } : ask.meta === null ? {} : { _meta: ask.meta }
  return app.inject({
    method: 'POST',
    url: `/mcp${ask.query ?? ''}`,
    headers,
    payload: JSON.stringify({
      jsonrpc: '2.0',
      ...id,
      method: ask.method,
      params: { ...ask.params, ...meta },
    }),
  })
}

/** Per response, or framing: the fast path sends a length where the SDK streams chunks. */
const MAY_DIFFER = new Set(['date', 'content-length', 'transfer-encoding'])

function firstDifference(a: Buffer, b: Buffer): string {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  const around = (x: Buffer) => JSON.stringify(x.subarray(Math.max(0, i - 80), i + 80).toString())
  return `bodies differ at byte ${i} (${a.length} vs ${b.length} bytes):\n fast ${around(a)}\n sdk  ${around(b)}`
}

/**
 * Asks both twins; asserts the same status, body bytes and headers, and which path the fast twin
 * took (`fast`: its own, `sdk`: the SDK's). Returns the answer, parsed.
 */
async function same(
  { fast, sdk }: Twins,
  ask: Ask,
  path?: 'fast' | 'sdk',
): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  const [ours, theirs] = [await send(fast, ask), await send(sdk, ask)]
  const what = `${ask.method} ${ask.query ?? ''} ${JSON.stringify(ask.params ?? {}).slice(0, 200)} id ${JSON.stringify(ask.id)}`
  assert.equal(ours.statusCode, theirs.statusCode, `${what}: status`)
  assert.ok(
    ours.rawPayload.equals(theirs.rawPayload),
    `${what}: ${firstDifference(ours.rawPayload, theirs.rawPayload)}`,
  )
  for (const name of new Set([...Object.keys(ours.headers), ...Object.keys(theirs.headers)]))
    if (name === 'ratelimit-reset') {
      // Seconds left in each twin's own window, read a moment apart: a second boundary may fall between.
      const [a, b] = [Number(ours.headers[name]), Number(theirs.headers[name])]
      assert.ok(
        Number.isInteger(a) && Number.isInteger(b) && Math.abs(a - b) <= 1,
        `${what}: header ${name} ${a} vs ${b}`,
      )
    } else if (!MAY_DIFFER.has(name))
      assert.equal(ours.headers[name], theirs.headers[name], `${what}: header ${name}`)
  // Where the SDK streams an answer (every answer with a body), the fast twin took `path`.
  if (path === 'fast') assert.equal(pathOf(theirs), 'sdk', `${what}: the SDK twin streams`)
  if (path && pathOf(theirs) === 'sdk') assert.equal(pathOf(ours), path, `${what}: the fast twin's path`)
  return ours.body ? (JSON.parse(ours.body) as { result?: Record<string, unknown> }) : {}
}

const pathOf = (res: LightMyRequestResponse) =>
  res.headers['transfer-encoding'] === 'chunked' ? 'sdk' : res.headers['content-length'] ? 'fast' : 'none'

/** Every page of a tools/list, following nextCursor; each page asserted equal. */
async function everyPage(twin: Twins, ask: Omit<Ask, 'method' | 'params'>): Promise<number> {
  let cursor: string | undefined
  let listed = 0
  do {
    const answer = await same(
      twin,
      { ...ask, method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) },
      'fast',
    )
    const result = answer.result!
    listed += (result.tools as unknown[]).length
    cursor = result.nextCursor as string | undefined
  } while (cursor)
  return listed
}

/** JSON-RPC ids: numbers (safe integers take the fast path, others the SDK's) and strings that need escaping. */
const ids = fc.oneof(
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    '"',
    '\\',
    '"}],"x":1',
    '\u2028\u2029',
    '\ud800',
    '\udfff\ud800',
    '\u0000\u001f',
    '</script>',
  ),
)
const fastId = (id: unknown) => typeof id === 'string' || Number.isSafeInteger(id)

const PROFILES = 'profiles:\n  readers: { safety: { readOnly: true } }\n  agents: { mcpMode: search }\n'

describe('MCP fast path answers what the SDK answers', () => {
  test('shipped specs: server/discover and every tools/list page, each view, dialect and mode, generated ids', async (t) => {
    const twin = await exampleTwins(t, PROFILES)
    await fc.assert(
      fc.asyncProperty(
        ids,
        fc.constantFrom(
          '',
          '?profile=readers',
          '?profile=agents',
          '?strict=true',
          '?profile=readers&strict=true',
        ),
        fc.constantFrom('', 'mode=search', 'mode=list'),
        async (id, view, mode) => {
          const query = mode ? `${view ? `${view}&` : '?'}${mode}` : view
          const path = fastId(id) ? 'fast' : 'sdk'
          await same(twin, { method: 'server/discover', id, query }, path)
          await same(twin, { method: 'tools/list', id, query }, path)
        },
      ),
      { numRuns: 60 },
    )
    assert.equal(await everyPage(twin, {}), 22)
    assert.equal(await everyPage(twin, { query: '?strict=true' }), 22)
    assert.equal(await everyPage(twin, { query: '?profile=agents' }), 3)
  })

  test('Kubernetes (1,002 tools): every page in both dialects, then again from the memo', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'toolgate-k8s-'))
    await copyFile(
      fromRoot('test', 'fixtures', 'real-world', 'kubernetes-v1.13.json'),
      join(dir, 'kubernetes-v1.13.json'),
    )
    const twin = await twins(t, { SPECS_DIR: dir })
    for (const query of ['', '?strict=true']) {
      const listed = await everyPage(twin, { query })
      assert.ok(listed > 1000, `${listed} tools listed`)
      assert.equal(await everyPage(twin, { query, id: 'again' }), listed)
    }
  })

  test('clients: each caller its own filtered catalog, private cache hints, a refusal and an unknown tool', async (t) => {
    const tokens = {
      opal: 'opal-registry-token-0001',
      billing: 'billing-bot-token-000002',
      reader: 'reader-token-00000000005',
    }
    const twin = await exampleTwins(
      t,
      `${PROFILES}clients:
  - id: opal
    token: { value: ${tokens.opal} }
    tools: ["tickets:*"]
  - id: billing-bot
    token: { value: ${tokens.billing} }
    tools: ["billing:*"]
  - id: reader
    token: { value: ${tokens.reader} }
    profiles: [readers]
`,
    )
    const counts: Record<string, number> = {}
    for (const [client, token] of Object.entries(tokens)) {
      const headers = { authorization: `Bearer ${token}` }
      const query = client === 'reader' ? '?profile=readers' : ''
      const discover = await same(twin, { method: 'server/discover', headers, query }, 'fast')
      assert.equal(discover.result?.cacheScope, 'private')
      counts[client] = await everyPage(twin, { headers, query })
      await everyPage(twin, { headers, query: `${query ? `${query}&` : '?'}strict=true` })
      await same(
        twin,
        { method: 'tools/list', headers, query: `${query ? `${query}&` : '?'}mode=search` },
        'fast',
      )
    }
    assert.ok(
      counts.opal! > 0 && counts.billing! > 0 && counts.opal! + counts.billing! === 20,
      JSON.stringify(counts),
    )
    const opal = { authorization: `Bearer ${tokens.opal}` }
    const invoice = { name: 'billing_get_invoice', arguments: { invoiceId: 'INV-2001' } }
    const refused = await same(twin, { method: 'tools/call', params: invoice, headers: opal }, 'fast')
    assert.ok(refused.error, 'a tool outside the client is a protocol error')
    const unknown = await same(
      twin,
      { method: 'tools/call', params: { name: 'nope', arguments: {} }, headers: opal },
      'fast',
    )
    assert.match(JSON.stringify(unknown.error), /Unknown tool: nope/)
    const allowed = await same(
      twin,
      {
        method: 'tools/call',
        params: { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } },
        headers: opal,
      },
      'fast',
    )
    assert.equal(allowed.result?.isError, false)
  })

  test("JWT clients: each token its client's catalog, listed and called", async (t) => {
    const auth = await startAuthServer(t)
    const jwt = `{ issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}" }`
    const twin = await exampleTwins(
      t,
      `publicUrl: https://gateway.test
clients:
  - id: agent-a
    jwt: ${jwt}
    tools: ["tickets:*"]
  - id: agent-b
    jwt: ${jwt}
    tools: ["billing:*"]
`,
    )
    for (const client of ['agent-a', 'agent-b']) {
      const token = await auth.sign({ client_id: client, aud: 'https://gateway.test/mcp' })
      const headers = { authorization: `Bearer ${token}` }
      const discover = await same(twin, { method: 'server/discover', headers }, 'fast')
      assert.equal(discover.result?.cacheScope, 'private')
      assert.ok((await everyPage(twin, { headers })) > 0)
      await everyPage(twin, { headers, query: '?strict=true' })
      const ticket = { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } }
      const called = await same(twin, { method: 'tools/call', params: ticket, headers }, 'fast')
      // agent-a's ticket tool answers; agent-b may not call it: a protocol error, as the SDK's.
      if (client === 'agent-a') assert.equal(called.result?.isError, false)
      else assert.ok(called.error)
    }
  })

  test('tools/call: success, upstream failure, invalid and too-deep arguments, approval, unknown tool, search mode', async (t) => {
    const twin = await exampleTwins(t, PROFILES)
    const call = (name: string, args: unknown, more: Partial<Ask> = {}) =>
      same(
        twin,
        { method: 'tools/call', params: { name, arguments: args }, ...more },
        more.query === '?mode=search' && name === 'call_tool' ? 'sdk' : 'fast',
      )
    assert.equal((await call('tickets_get_ticket', { ticketId: 'T-1001' })).result?.isError, false)
    assert.equal((await call('tickets_get_ticket', { ticketId: 'T-999999' })).result?.isError, true)
    assert.equal((await call('tickets_get_ticket', { ticketId: 5 })).result?.isError, true)
    assert.equal((await call('tickets_delete_ticket', { ticketId: 'T-1001' })).result?.isError, true)
    let deep: unknown = 'leaf'
    for (let i = 0; i < 80; i++) deep = { deeper: deep }
    assert.equal((await call('tickets_get_ticket', { ticketId: deep })).result?.isError, true)
    assert.ok((await call('nope', {})).error)
    assert.equal(
      (await call('tickets_get_ticket', { ticketId: 'T-1001' }, { query: '?strict=true' })).result?.isError,
      false,
    )
    assert.ok(
      (await call('billing_get_invoice', { invoiceId: 'INV-2001' }, { query: '?profile=readers' })).result,
    )
    // Search mode: a real tool by name on the fast path, its meta-tools on the SDK's.
    assert.equal(
      (await call('tickets_get_ticket', { ticketId: 'T-1001' }, { query: '?mode=search' })).result?.isError,
      false,
    )
    assert.match(
      JSON.stringify((await call('nope', {}, { query: '?mode=search' })).error),
      /search_tools finds/,
    )
    await call(
      'call_tool',
      { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } },
      { query: '?mode=search' },
    )
    await fc.assert(
      fc.asyncProperty(ids, async (id) => {
        await same(
          twin,
          {
            method: 'tools/call',
            id,
            params: { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1002' } },
          },
          fastId(id) ? 'fast' : 'sdk',
        )
      }),
      { numRuns: 30 },
    )
  })

  test('tools/call on hostile upstream answers: __proto__ keys, text, images, bytes, arrays, nothing, failures', async (t) => {
    const answers: Record<string, { status: number; type?: string; body: string | Buffer }> = {
      proto: {
        status: 200,
        type: 'application/json',
        body: '{"__proto__":{"polluted":true},"id":"x","n":1}',
      },
      nested: { status: 200, type: 'application/json', body: '{"a":{"__proto__":{"b":1}},"constructor":2}' },
      text: { status: 200, type: 'text/plain', body: 'plain "text" \u2028 ünïcode' },
      image: { status: 200, type: 'image/png', body: Buffer.from('89504e470d0a1a0a00', 'hex') },
      bytes: { status: 200, type: 'application/octet-stream', body: Buffer.from([0, 1, 2, 255]) },
      array: { status: 200, type: 'application/json', body: '[1,{"__proto__":1}]' },
      empty: { status: 204, body: '' },
      failure: { status: 503, type: 'application/json', body: '{"error":"down","__proto__":{}}' },
      lie: { status: 200, type: 'application/json', body: '{"unexpected":true}' },
    }
    const upstream = await startUpstream(t, (received, res) => {
      const answer = answers[received.target.slice(1)]!
      res.writeHead(answer.status, answer.type ? { 'content-type': answer.type } : {})
      res.end(answer.body)
    })
    const object = {
      'application/json': {
        schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    }
    const paths = Object.fromEntries(
      Object.keys(answers).map((name) => [
        `/${name}`,
        { get: { operationId: name, responses: { '200': { description: 'ok', content: object } } } },
      ]),
    )
    const spec = openapi(paths, { servers: [{ url: upstream.url }] })
    const twin = await twins(t, { SPECS_DIR: MEMORY_DIR }, memoryReader({ 'hostile.yaml': spec }))
    const listed = await same(twin, { method: 'tools/list' }, 'fast')
    const names = (listed.result!.tools as { name: string }[]).map((tool) => tool.name)
    assert.equal(names.length, Object.keys(answers).length)
    for (const name of names) {
      const answer = await same(twin, { method: 'tools/call', params: { name, arguments: {} } }, 'fast')
      assert.ok(answer.result, `${name}: a result`)
    }
  })

  test('everything off the happy path goes down the SDK path and answers as it does', async (t) => {
    const twin = await exampleTwins(t, PROFILES)
    const second = Buffer.from(JSON.stringify({ offset: 5 })).toString('base64url')
    const beyond = Buffer.from(JSON.stringify({ offset: 100 })).toString('base64url')
    const get = { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } }
    const deviants: Ask[] = [
      { method: 'tools/list', params: { cursor: 'zzz' } },
      { method: 'tools/list', params: { cursor: second } },
      { method: 'tools/list', params: { cursor: beyond } },
      { method: 'tools/list', params: { cursor: 7 } },
      { method: 'tools/list', params: { cursor: 'x' }, query: '?mode=search' },
      { method: 'tools/list', params: { extra: true } },
      { method: 'tools/list', id: null },
      {
        method: 'tools/list',
        meta: { ...META, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      },
      { method: 'tools/list', meta: { ...META, 'io.modelcontextprotocol/clientInfo': { name: 1 } } },
      { method: 'tools/list', meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } },
      { method: 'tools/list', meta: null },
      { method: 'tools/list', meta: null, headers: { 'mcp-protocol-version': '2025-11-25' } },
      { method: 'tools/list', headers: { 'mcp-method': undefined } },
      { method: 'tools/list', headers: { 'mcp-method': 'tools/call' } },
      { method: 'tools/list', headers: { 'mcp-protocol-version': undefined } },
      { method: 'server/discover', params: { cursor: 'x' } },
      { method: 'tools/call', params: { ...get }, headers: { 'mcp-name': undefined } },
      { method: 'tools/call', params: { ...get }, headers: { 'mcp-name': 'tickets_list_tickets' } },
      { method: 'tools/call', params: { name: 'tickets_get_ticket', arguments: ['T-1001'] } },
      {
        method: 'tools/call',
        params: { name: 'tickets_get_ticket', arguments: JSON.parse('{"__proto__":{"ticketId":"T-1001"}}') },
      },
      { method: 'tools/call', params: { name: 5, arguments: {} } },
      { method: 'tools/call', params: { ...get, task: { ttl: 1 } } },
      { method: 'tools/call', params: { ...get, requestState: 'x' } },
      { method: 'resources/list' },
      { method: 'prompts/list' },
      {
        method: 'initialize',
        meta: null,
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      },
    ]
    for (const ask of deviants) await same(twin, ask, 'sdk')
  })
})

/** The same JSON value with its object keys in another order (what the SDK's verdict ignores). */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered)
  if (value === null || typeof value !== 'object') return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value).reverse())
    Object.defineProperty(copy, key, {
      value: reordered((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  return copy
}

/** JSON text with object keys sorted: equal texts are equal values, key order aside. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const keys = Object.keys(value).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`
}

/** Values as JSON.parse makes them, an own `__proto__` key among the possible ones. */
const parsedJson = fc
  .jsonValue({ maxDepth: 6 })
  .chain((value) =>
    fc.constantFrom(
      value,
      JSON.parse(`{"__proto__":${JSON.stringify(value)}}`),
      JSON.parse(`[{"__proto__":{"a":${JSON.stringify(value)}}}]`),
    ),
  )

describe("the fast path's checks of a parsed message", () => {
  /** The walk nestsDeeperThan was before issue 20 (iterative, allocating): the reference of the one MCP runs. */
  const deeperByQueue = (value: unknown, max: number): boolean => {
    const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }]
    while (pending.length > 0) {
      const { value: next, depth } = pending.pop()!
      if (next === null || typeof next !== 'object') continue
      if (depth >= max) return true
      for (const child of Object.values(next)) pending.push({ value: child, depth: depth + 1 })
    }
    return false
  }

  test('nestsDeeperThan is the iterative walk it replaced, for every depth, deep nests and __proto__ keys included', () => {
    const nested = fc
      .tuple(fc.integer({ min: 0, max: 300 }), fc.constantFrom('{"a":', '[', '{"__proto__":'), parsedJson)
      .map(([levels, open, inner]) => {
        const close = open === '[' ? ']' : '}'
        return JSON.parse(`${open.repeat(levels)}${JSON.stringify(inner)}${close.repeat(levels)}`) as unknown
      })
    fc.assert(
      fc.property(fc.oneof(parsedJson, nested), fc.integer({ min: 0, max: 310 }), (value, depth) => {
        if (value === null || typeof value !== 'object') return
        assert.equal(nestsDeeperThan(value, depth), deeperByQueue(value, depth))
      }),
      { numRuns: 500 },
    )
  })

  test('sameJson is JSON equality with key order aside', () => {
    fc.assert(
      fc.property(parsedJson, parsedJson, (a, b) => {
        assert.equal(sameJson(a, JSON.parse(JSON.stringify(a))), true)
        assert.equal(sameJson(reordered(a), a), true)
        assert.equal(sameJson(a, b), canonical(a) === canonical(b))
      }),
      { numRuns: 500 },
    )
    assert.equal(sameJson({ a: 1 }, { a: 1, b: undefined }), false)
    assert.equal(sameJson({ a: [1, 2] }, { a: { 0: 1, 1: 2 } }), false)
    assert.equal(sameJson(JSON.parse('{"__proto__":{}}'), {}), false)
  })

  test('envelopes judged before, in any key order, get the verdict the SDK gives each', async (t) => {
    const twin = await exampleTwins(t)
    const VERSION = 'io.modelcontextprotocol/protocolVersion'
    const INFO = 'io.modelcontextprotocol/clientInfo'
    const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
    // A small pool, so that envelopes repeat (the remembered verdicts) and near-misses follow each other.
    const infos = fc.constantFrom<unknown>(
      { name: 'a', version: '1' },
      { name: 'a', version: '1.0' },
      { name: 'b', version: '1' },
      { name: 'a', version: '1', title: 'A' },
      { name: 'a' },
      { name: 1, version: '1' },
      { name: 'a', version: ['1'] },
      'a',
      null,
      [],
    )
    const capabilities = fc.constantFrom<unknown>(
      {},
      { sampling: {} },
      { roots: { listChanged: true } },
      { roots: { listChanged: 'yes' } },
      { elicitation: {}, sampling: {} },
      { experimental: { x: { y: [1, { z: null }] } } },
      7,
      [],
      null,
    )
    const envelope = fc
      .record(
        { version: fc.constantFrom(MODERN, MODERN, MODERN, '2025-11-25'), info: infos, capabilities },
        { requiredKeys: ['version'] },
      )
      .map(({ version, info, capabilities }) => ({
        [VERSION]: version,
        ...(info === undefined ? {} : { [INFO]: info }),
        ...(capabilities === undefined ? {} : { [CAPABILITIES]: capabilities }),
      }))
    await fc.assert(
      fc.asyncProperty(envelope, fc.boolean(), async (meta, reverse) => {
        const sent = reverse ? reordered(meta) : meta
        await same(twin, { method: 'server/discover', meta: sent })
        await same(twin, { method: 'tools/list', meta: sent, id: 'list' })
      }),
      { numRuns: 150 },
    )
  })
})
