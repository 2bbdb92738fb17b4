// An MCP client built on the official TypeScript SDK connects over HTTP, lists and calls (SPEC §2 MCP).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { configFile, exampleApp, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'

async function connect(t: { after(fn: () => Promise<unknown>): void }, app: FastifyInstance, path = '/mcp') {
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(path, url)))
  t.after(() => client.close())
  return { client, url }
}

const text = (result: Record<string, unknown>) =>
  (result.content as { type: string; text: string }[])[0]!.text

describe('MCP with the official SDK client', () => {
  test('initialize on 2025-11-25, list every tool of the shipped specs with safety annotations', async (t) => {
    const { app } = await exampleApp(t)
    const { client } = await connect(t, app)
    assert.equal(client.getServerVersion()?.name, 'toolgate')
    const { tools } = await client.listTools()
    assert.equal(tools.length, 22)
    const remove = tools.find((tool) => tool.name === 'tickets_delete_ticket')!
    assert.deepEqual(remove.annotations, {
      title: 'Delete a ticket',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    })
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object')
      assert.match(tool.name, /^[a-zA-Z0-9_-]{1,64}$/)
    }
    // Issue 16: a tool whose success answer is a JSON object has an output schema (mcp-output.test.ts).
    assert.equal(remove.outputSchema, undefined)
    assert.equal(tools.find((tool) => tool.name === 'tickets_get_ticket')?.outputSchema?.type, 'object')
  })

  test('a call that reaches the real upstream: text plus structuredContent', async (t) => {
    const { app } = await exampleApp(t)
    const { client } = await connect(t, app)
    const result = await client.callTool({ name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } })
    assert.equal(result.isError, false)
    assert.equal((result.structuredContent as { id: string }).id, 'T-1001')
    assert.equal(JSON.parse(text(result)).id, 'T-1001')
  })

  test('an upstream failure, invalid arguments and a needed approval are isError results with useful text', async (t) => {
    const { app } = await exampleApp(t)
    const { client } = await connect(t, app)
    const missing = await client.callTool({ name: 'tickets_get_ticket', arguments: { ticketId: 'T-999999' } })
    assert.equal(missing.isError, true)
    assert.match(text(missing), /^Upstream answered HTTP 404\. /)
    const invalid = await client.callTool({
      name: 'tickets_create_ticket',
      arguments: { title: 'x', priority: 'whenever' },
    })
    assert.equal(invalid.isError, true)
    assert.match(
      text(invalid),
      /Invalid arguments for tool tickets_create_ticket[\s\S]*- \/description: is required[\s\S]*- \/priority: must be one of/,
    )
    const approval = await client.callTool({
      name: 'tickets_delete_ticket',
      arguments: { ticketId: 'T-1001' },
    })
    assert.equal(approval.isError, true)
    assert.match(text(approval), /requires approval/)
  })

  test('unknown tool and unknown method are JSON-RPC errors', async (t) => {
    const app = await testApp(t)
    const { client } = await connect(t, app)
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err: unknown) => {
      assert.ok(err instanceof McpError)
      assert.equal(err.code, ErrorCode.InvalidParams)
      // The SDK client prefixes "MCP error -32602: " once; the server's message must not carry it too.
      assert.equal(
        err.message,
        'MCP error -32602: Unknown tool: no_such_tool. tools/list names the tools of this endpoint.',
      )
      return true
    })
    await assert.rejects(
      client.request({ method: 'toolgate/no-such-method' } as never, (await import('zod')).z.any()),
      (err: unknown) => {
        assert.ok(err instanceof McpError)
        assert.equal(err.code, ErrorCode.MethodNotFound)
        return true
      },
    )
  })

  test('tools/list is cursor-paginated; ?profile= serves a profile view', async (t) => {
    const paths = Object.fromEntries(
      Array.from({ length: 250 }, (_, i) => [`/r${i}`, { get: { operationId: `read${i}`, responses: ok } }]),
    )
    const app = await testApp(t, { SPECS_DIR: MEMORY_DIR }, memoryReader({ 'big.yaml': openapi(paths) }))
    const { client } = await connect(t, app)
    const names: string[] = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = await client.listTools(cursor ? { cursor } : {})
      names.push(...page.tools.map((tool) => tool.name))
      cursor = page.nextCursor
      pages++
    } while (cursor)
    assert.equal(pages, 3)
    assert.equal(new Set(names).size, 250)
    await assert.rejects(client.listTools({ cursor: 'garbage' }), /Invalid cursor/)
  })
})

describe('MCP over raw HTTP', () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

  test('malformed JSON is a JSON-RPC parse error; a non-JSON-RPC body an invalid request', async (t) => {
    const app = await testApp(t)
    const bad = await app.inject({ method: 'POST', url: '/mcp', headers, payload: '{"jsonrpc":' })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().error.code, ErrorCode.ParseError)
    // A batch is invalid from 2025-06-18 on; without the header a server assumes 2025-03-26, which
    // takes batches (issue 42 item 5: test/app/mcp-batch.test.ts).
    const current = { ...headers, 'mcp-protocol-version': '2025-11-25' }
    for (const payload of [
      { hello: 'world' },
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      { jsonrpc: '2.0', id: null, method: 'ping' },
    ]) {
      const invalid = await app.inject({ method: 'POST', url: '/mcp', headers: current, payload })
      assert.equal(invalid.statusCode, 400)
      assert.equal(invalid.json().error.code, ErrorCode.InvalidRequest, JSON.stringify(payload))
    }
  })

  test('notifications answer 202; GET is 405; CORS exposes Mcp-Session-Id and allows the MCP headers', async (t) => {
    const app = await testApp(t, {
      TOOLGATE_CONFIG: await configFile('allowedOrigins: [https://client.example]\n'),
    })
    const note = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers,
      payload: { jsonrpc: '2.0', method: 'notifications/initialized' },
    })
    assert.equal(note.statusCode, 202)
    assert.equal((await app.inject('/mcp')).statusCode, 405)
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/mcp',
      headers: {
        origin: 'https://client.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'mcp-protocol-version, mcp-session-id, content-type',
      },
    })
    assert.match(String(preflight.headers['access-control-allow-headers']), /Mcp-Protocol-Version/)
    assert.match(String(preflight.headers['access-control-allow-headers']), /Mcp-Method, Mcp-Name/)
    const answer = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, origin: 'https://client.example' },
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
    })
    assert.equal(answer.statusCode, 200)
    assert.match(String(answer.headers['access-control-expose-headers']), /Mcp-Session-Id/)
    assert.deepEqual(answer.json(), { jsonrpc: '2.0', id: 1, result: {} })
  })

  test('initialize echoes every revision the official SDK supports; an unknown one gets the latest', async (t) => {
    const app = await testApp(t)
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers,
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
        },
      })
      assert.equal(res.json().result.protocolVersion, version)
    }
    const future = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers,
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2099-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
    })
    assert.equal(future.json().result.protocolVersion, '2025-11-25')
  })

  test('an unknown profile is refused', async (t) => {
    const app = await testApp(t)
    const res = await app.inject({
      method: 'POST',
      url: '/mcp?profile=nope',
      headers,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    assert.equal(res.statusCode, 400)
    assert.match(res.json().error.message, /Unknown profile nope/)
  })
})
