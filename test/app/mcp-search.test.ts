// MCP search mode (issue 15) with the official SDK client: tools/list answers the meta-tools only;
// search, describe, and a call that reaches the example upstream through the same executor,
// access refusals and approvals as tools/call.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { exampleApp } from '../helpers/app.js'
import { openAIStrictRules } from '../helpers/tool-rules.js'

async function connect(t: { after(fn: () => Promise<unknown>): void }, app: FastifyInstance, path: string) {
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(path, url)))
  t.after(() => client.close())
  return client
}

const text = (result: Record<string, unknown>) =>
  (result.content as { type: string; text: string }[])[0]!.text

const TOKEN = 'billing-bot-token-000002'
const CONFIG = `
profiles:
  agents: { mcpMode: search }
clients:
  - id: billing-bot
    token: { value: ${TOKEN} }
    tools: ["billing:*"]
  - id: helpdesk
    token: { value: helpdesk-token-0000000003 }
    tools: ["tickets:*"]
`

describe('MCP search mode', () => {
  test('list (meta-tools only), search, describe, and call a tool that reaches the upstream', async (t) => {
    const { app } = await exampleApp(t)
    const client = await connect(t, app, '/mcp?mode=search')
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['search_tools', 'describe_tools', 'call_tool'],
    )
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object')

    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'look up a ticket by its id' },
    })
    assert.equal(found.isError, false)
    const hits = (found.structuredContent as { tools: { name: string; score: number }[] }).tools
    assert.ok(hits.length > 0 && hits.length <= 5)
    assert.ok(
      hits.slice(0, 3).some((hit) => hit.name === 'tickets_get_ticket'),
      hits.map((h) => h.name).join(),
    )
    assert.deepEqual(JSON.parse(text(found)), found.structuredContent)
    // Compact (issue 43): one line, the required arguments and a confidence; schemas come from describe_tools.
    const ticket = (
      found.structuredContent as {
        tools: { name: string; description: string; required: string[]; confidence: number }[]
      }
    ).tools.find((hit) => hit.name === 'tickets_get_ticket')!
    assert.deepEqual(ticket.required, ['ticketId'])
    assert.ok(!ticket.description.includes('\n') && ticket.description.length <= 160, ticket.description)
    assert.ok(ticket.confidence > 0 && ticket.confidence <= 1)

    const described = await client.callTool({
      name: 'describe_tools',
      arguments: { names: ['tickets_get_ticket', 'no_such_tool'] },
    })
    const { tools: definitions, unknown } = described.structuredContent as {
      tools: { name: string; inputSchema: { properties: Record<string, unknown>; required: string[] } }[]
      unknown: string[]
    }
    assert.equal(definitions[0]!.name, 'tickets_get_ticket')
    assert.ok('ticketId' in definitions[0]!.inputSchema.properties)
    assert.deepEqual(unknown, ['no_such_tool'])

    const called = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } },
    })
    assert.equal(called.isError, false, text(called))
    assert.equal((called.structuredContent as { id: string }).id, 'T-1001')

    // The same limits as tools/call: an approval is needed, arguments are checked, names must exist.
    const approval = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets_delete_ticket', arguments: { ticketId: 'T-1001' } },
    })
    assert.equal(approval.isError, true)
    assert.match(text(approval), /requires approval/)
    const invalid = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets_create_ticket', arguments: { title: 'x', priority: 'whenever' } },
    })
    assert.equal(invalid.isError, true)
    assert.match(text(invalid), /Invalid arguments for tool tickets_create_ticket/)
    const unknownCall = await client.callTool({ name: 'call_tool', arguments: { name: 'no_such_tool' } })
    assert.equal(unknownCall.isError, true)
    assert.match(text(unknownCall), /Unknown tool: no_such_tool\. search_tools finds/)
    // The real tools stay callable by name in search mode.
    const direct = await client.callTool({ name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } })
    assert.equal(direct.isError, false)
  })

  test('bad meta-tool arguments are isError results; a deep call_tool argument is refused', async (t) => {
    const { app } = await exampleApp(t)
    const client = await connect(t, app, '/mcp?mode=search')
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['search_tools', {}, /pass query/],
      ['search_tools', { query: '   ' }, /pass query/],
      ['search_tools', { query: 'x'.repeat(10_000) }, /pass query/],
      ['search_tools', { query: 'ticket', limit: 0 }, /limit is a whole number/],
      ['search_tools', { query: 'ticket', limit: 'ten' }, /limit is a whole number/],
      ['search_tools', { query: 'ticket', limit: 1e9 }, /limit is a whole number/],
      ['describe_tools', { names: [] }, /pass names/],
      ['describe_tools', { names: 'tickets_get_ticket' }, /pass names/],
      ['call_tool', {}, /pass name/],
      ['call_tool', { name: 'call_tool' }, /pass name/],
      ['call_tool', { name: 'tickets_get_ticket', arguments: [1] }, /arguments must be an object/],
    ]
    for (const [name, args, message] of cases) {
      const result = await client.callTool({ name, arguments: args })
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args).slice(0, 60)}`)
      assert.match(text(result), message)
    }
    const operators = await client.callTool({ name: 'search_tools', arguments: { query: '*** AND () OR' } })
    assert.equal(operators.isError, false)
    let deep: unknown = 'x'
    for (let i = 0; i < 200; i++) deep = { deep }
    const tooDeep = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets_get_ticket', arguments: { ticketId: deep } },
    })
    assert.equal(tooDeep.isError, true)
    assert.match(text(tooDeep), /Invalid arguments for tool tickets_get_ticket/)
  })

  test('a profile setting turns search mode on, ?mode=list turns it off; a token narrows search and call', async (t) => {
    const { app } = await exampleApp(t, CONFIG)
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const connectWith = async (path: string, token: string) => {
      const client = new Client({ name: 'toolgate-test', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(path, url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      )
      t.after(() => client.close())
      return client
    }
    const billing = await connectWith('/mcp?profile=agents', TOKEN)
    assert.equal((await billing.listTools()).tools.length, 3)
    const found = await billing.callTool({
      name: 'search_tools',
      arguments: { query: 'ticket invoice', limit: 20 },
    })
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((hit) => hit.name)
    assert.ok(names.length > 0 && names.every((name) => name.startsWith('billing_')), names.join())
    const refused = await billing.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } },
    })
    assert.equal(refused.isError, true)
    const full = await connectWith('/mcp?profile=agents&mode=list', 'helpdesk-token-0000000003')
    assert.ok((await full.listTools()).tools.length > 3)
    const res = await fetch(new URL('/mcp?mode=everything', url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    assert.equal(res.status, 400)
    assert.match(
      ((await res.json()) as { error: { message: string } }).error.message,
      /Unknown mode everything: use one of list, search/,
    )
  })

  test('?mode=search&strict=true lists meta-tools OpenAI strict mode takes; call_tool takes the arguments as JSON text', async (t) => {
    const { app } = await exampleApp(t)
    const client = await connect(t, app, '/mcp?mode=search&strict=true')
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['search_tools', 'describe_tools', 'call_tool'],
    )
    const asOpenAI = tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        strict: true,
        parameters: tool.inputSchema,
      },
    }))
    assert.deepEqual(openAIStrictRules(asOpenAI), [])

    const found = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'a ticket by id', limit: null },
    })
    assert.equal(found.isError, false)
    assert.ok((found.structuredContent as { tools: unknown[] }).tools.length <= 5, 'null is the default 5')
    const ticket = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'tickets_get_ticket', arguments: '{"ticketId":"T-1001"}' },
    })
    assert.equal(ticket.isError, false, text(ticket))
    assert.match(text(ticket), /T-1001/)

    // Any JSON text of the same object is the same call; any other text is call_tool's own error, naming it.
    const spelled = fc
      .tuple(fc.nat({ max: 4 }), fc.constantFrom('', ' ', '\n', '\t'))
      .map(([indent, pad]) => `${pad}${JSON.stringify({ ticketId: 'T-1001' }, null, indent)}${pad}`)
    await fc.assert(
      fc.asyncProperty(spelled, async (json) => {
        const res = await client.callTool({
          name: 'call_tool',
          arguments: { name: 'tickets_get_ticket', arguments: json },
        })
        assert.equal(res.isError, false, text(res))
      }),
      { numRuns: 10 },
    )
    const notAnObject = fc.oneof(
      fc.string().filter((value) => {
        try {
          const parsed: unknown = JSON.parse(value)
          return parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)
        } catch {
          return true
        }
      }),
      fc.constantFrom('{"__proto__":{"x":1}}', '[]', '"text"', '{', '{"constructor":{"prototype":{}}}'),
    )
    await fc.assert(
      fc.asyncProperty(notAnObject, async (value) => {
        const res = await client.callTool({
          name: 'call_tool',
          arguments: { name: 'tickets_get_ticket', arguments: value },
        })
        assert.equal(res.isError, true, `${JSON.stringify(value)}: ${text(res)}`)
        assert.match(text(res), /^call_tool: (the arguments text|arguments must be an object)/)
      }),
      { numRuns: 40 },
    )
  })
})
