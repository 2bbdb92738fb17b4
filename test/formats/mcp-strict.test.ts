// Issue 16: MCP's `?strict=true` tools carry input schemas a strict-mode client keeps — checked by
// the `openai` SDK's own toStrictJsonSchema over every tool of the real-world corpus — and a call
// shaped the way strict mode shapes it (every optional argument sent as null) still works.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { toStrictJsonSchema } from 'openai/lib/transform'
import { buildCatalog, DISCOVER_VIEW, fsSourceReader, loadSpecsDirectory } from '../../src/catalog/index.js'
import { renderMcpTools } from '../../src/formats/index.js'
import { exampleApp } from '../helpers/app.js'
import { fromRoot } from '../helpers/paths.js'

describe("MCP strict-mode schemas pass the openai SDK's toStrictJsonSchema", () => {
  const dir = fromRoot('test', 'fixtures', 'real-world')
  const corpus = JSON.parse(readFileSync(`${dir}/index.json`, 'utf8')) as {
    file: string
    operations: number
  }[]
  for (const { file, operations } of corpus) {
    test(`${file}: all ${operations} tools`, async () => {
      const catalog = buildCatalog(
        await loadSpecsDirectory(dir, { listFiles: async () => [file], readText: fsSourceReader.readText }),
      )
      const tools = renderMcpTools(catalog, DISCOVER_VIEW, { strict: true })
      assert.equal(tools.length, operations)
      const refused: string[] = []
      for (const tool of tools) {
        try {
          toStrictJsonSchema(structuredClone(tool.inputSchema) as never)
        } catch (err) {
          refused.push(`${tool.name}: ${(err as Error).message}`)
        }
        assert.equal(tool.inputSchema.type, 'object')
      }
      assert.deepEqual(refused.slice(0, 5), [], `${refused.length} of ${tools.length} refused`)
    })
  }
})

describe('MCP ?strict=true through the app', () => {
  test('tools/list serves closed, all-required schemas; a call with every optional argument null works', async (t) => {
    const { app } = await exampleApp(t)
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const client = new Client(
      { name: 'strict-client', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?strict=true', url)))
    t.after(() => client.close())
    const { tools } = await client.listTools()
    assert.equal(tools.length, 22)
    const list = tools.find((tool) => tool.name === 'tickets_list_tickets')!
    const schema = list.inputSchema as { properties: Record<string, unknown>; required: string[] }
    assert.equal((list.inputSchema as { additionalProperties?: unknown }).additionalProperties, false)
    assert.deepEqual([...schema.required].sort(), Object.keys(schema.properties).sort())
    const nulls = Object.fromEntries(Object.keys(schema.properties).map((key) => [key, null]))
    const result = await client.callTool({ name: 'tickets_list_tickets', arguments: nulls })
    assert.equal(result.isError, false, JSON.stringify(result.content))
  })
})
