// Issue 42, item 3: the official clients stop listing at 64 pages by default (SDK 2.x's
// listMaxPages, @openai/agents' maxListPages) and throw LIST_PAGINATION_EXCEEDED /
// ToolListPageLimitError. At 100 tools a page a 7,014-tool catalog failed in both. A spec file of
// limits.operations tools (20,000 by default, the largest one file the gateway serves) must list
// in full with their defaults; pages grow past mcp.pageSize so a list takes at most mcp.maxPages.
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { MCPServerStreamableHttp } from '@openai/agents-core'
import type { FastifyInstance } from 'fastify'
import { DEFAULT_CATALOG_LIMITS } from '../../src/catalog/limits.js'
import { testApp } from '../helpers/app.js'
import { largeSpec } from '../helpers/large-spec.js'
import { MEMORY_DIR, memoryReader } from '../helpers/memory-catalog.js'

/** A fetch that counts the tools/list pages asked and the bytes of their answers. */
function countingFetch() {
  const seen = { pages: 0, bytes: 0, largest: 0 }
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (typeof init?.body !== 'string' || !init.body.includes('"method":"tools/list"')) return response
    const text = await response.text()
    seen.pages++
    seen.bytes += Buffer.byteLength(text)
    seen.largest = Math.max(seen.largest, Buffer.byteLength(text))
    return new Response(text, { status: response.status, headers: response.headers })
  }
  return { seen, counting }
}

describe('a catalog of limits.operations tools, listed with each official client’s defaults', () => {
  const operations = DEFAULT_CATALOG_LIMITS.operations
  // Built once for both clients (about 40 s on the shared dev box): one spec file of exactly
  // limits.operations operations.
  let app: FastifyInstance
  let url: URL
  let expected: string[]
  const closers: (() => Promise<unknown>)[] = []
  after(async () => {
    for (const close of closers) await close()
  })
  before(async () => {
    app = await testApp(
      { after: (fn) => closers.push(fn) },
      { SPECS_DIR: MEMORY_DIR },
      memoryReader({ 'large.json': largeSpec(operations) }),
    )
    url = new URL('/mcp', await app.listen({ port: 0, host: '127.0.0.1' }))
    expected = app.catalogStore
      .current()
      .catalog.tools.map((tool) => tool.wireName)
      .sort()
    assert.equal(expected.length, operations, 'every operation is a tool')
  })

  test(`SDK 2.x listTools(): all ${operations} tools in at most 50 pages`, async (t) => {
    const { seen, counting } = countingFetch()
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(url, { fetch: counting }))
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(tools.map((tool) => tool.name).sort(), expected)
      assert.ok(seen.pages <= 50, `${seen.pages} pages`)
      t.diagnostic(`${seen.pages} pages, ${seen.bytes} bytes, the largest ${seen.largest}`)
    } finally {
      await client.close()
    }
  })

  test(`@openai/agents MCPServerStreamableHttp: all ${operations} tools`, async (t) => {
    const { seen, counting } = countingFetch()
    const server = new MCPServerStreamableHttp({ url: url.href, fetch: counting })
    await server.connect()
    try {
      const tools = await server.listTools()
      assert.deepEqual(tools.map((tool) => tool.name).sort(), expected)
      assert.ok(seen.pages <= 50, `${seen.pages} pages`)
      t.diagnostic(`${seen.pages} pages, ${seen.bytes} bytes, the largest ${seen.largest}`)
    } finally {
      await server.close()
    }
  })
})
