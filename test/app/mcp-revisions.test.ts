// Issue 16: the MCP endpoint on SDK 2.x serves the 2026-07-28 revision (server/discover, no
// handshake) and every 2025 revision the SDK negotiates, to the SDK 2.x client in each mode.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { FastifyInstance } from 'fastify'
import { exampleApp } from '../helpers/app.js'

type Negotiation = ConstructorParameters<typeof Client>[1]

async function connect(
  t: { after(fn: () => Promise<unknown>): void },
  app: FastifyInstance,
  options: Negotiation,
) {
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, options)
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url)))
  t.after(() => client.close())
  return client
}

/** Every tool of the shipped specs listed, and one call that reaches the example upstream. */
async function listAndCall(client: Client) {
  const { tools } = await client.listTools()
  assert.equal(tools.length, 22)
  const result = await client.callTool({ name: 'tickets_get_ticket', arguments: { ticketId: 'T-1001' } })
  assert.equal(result.isError, false)
  assert.equal((result.structuredContent as { id: string }).id, 'T-1001')
}

describe('MCP revisions with the SDK 2.x client', () => {
  test('pinned to 2026-07-28: server/discover, no handshake, list and call', async (t) => {
    const { app } = await exampleApp(t)
    const client = await connect(t, app, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
    assert.equal(client.getServerVersion()?.name, 'toolgate')
    await listAndCall(client)
  })

  test('auto negotiation picks 2026-07-28', async (t) => {
    const { app } = await exampleApp(t)
    const client = await connect(t, app, { versionNegotiation: { mode: 'auto' } })
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
    await listAndCall(client)
  })

  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    test(`forced to ${version}: the initialize handshake, list and call`, async (t) => {
      const { app } = await exampleApp(t)
      const client = await connect(t, app, {
        versionNegotiation: { mode: 'legacy' },
        supportedProtocolVersions: [version],
      })
      assert.equal(client.getNegotiatedProtocolVersion(), version)
      await listAndCall(client)
    })
  }

  for (const mode of ['modern', 'legacy'] as const) {
    test(`resources and prompts (${mode}): each service readable, each workflow a prompt naming its steps`, async (t) => {
      const { app } = await exampleApp(t)
      const client = await connect(t, app, {
        versionNegotiation: { mode: mode === 'modern' ? { pin: '2026-07-28' } : 'legacy' },
      })
      const { resources } = await client.listResources()
      assert.deepEqual(resources.map((r) => r.uri).sort(), [
        'toolgate://services/billing',
        'toolgate://services/support',
        'toolgate://services/tickets',
      ])
      const read = await client.readResource({ uri: 'toolgate://services/tickets' })
      const tickets = JSON.parse((read.contents[0] as { text: string }).text) as {
        id: string
        authentication: { type: string }[]
        tools: { name: string }[]
      }
      assert.equal(tickets.id, 'tickets')
      assert.ok(tickets.tools.some((tool) => tool.name === 'tickets_get_ticket'))
      assert.ok(tickets.authentication.length > 0)
      const { tools } = await client.listTools()
      const toolsOf = async (service: string) =>
        JSON.parse(
          (
            (await client.readResource({ uri: `toolgate://services/${service}` })).contents[0] as {
              text: string
            }
          ).text,
        ).tools as { name: string }[]
      const all = [...tickets.tools, ...(await toolsOf('billing')), ...(await toolsOf('support'))]
      assert.deepEqual(all.map((tool) => tool.name).sort(), tools.map((tool) => tool.name).sort())
      await assert.rejects(client.readResource({ uri: 'toolgate://services/nope' }), /Unknown resource/)

      const { prompts } = await client.listPrompts()
      assert.deepEqual(prompts.map((p) => p.name).sort(), [
        'workflow_closeTicket',
        'workflow_escalateUnpaidTicket',
      ])
      const escalate = await client.getPrompt({ name: 'workflow_escalateUnpaidTicket' })
      const text = (escalate.messages[0]!.content as { text: string }).text
      assert.match(text, /1\. getInvoice: call the tool billing_get_invoice/)
      assert.match(text, /tickets_add_comment/)
      await assert.rejects(client.getPrompt({ name: 'workflow_nope' }), /Unknown prompt/)
    })
  }
})
