// Issue 42, items 2 and 3: tools/list cursors are bound to the catalog version, view and dialect.
// A reload between two pages must leave every official client with the new catalog exactly, or
// with an error it surfaces, never a silent mix of two versions (a bare offset skipped or
// repeated tools). A cursor of any other shape is a clean -32602 naming it, on both MCP paths.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Client as Client2, StreamableHTTPClientTransport as Transport2 } from '@modelcontextprotocol/client'
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { MCPServerStreamableHttp } from '@openai/agents-core'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { SourceReader } from '../../src/catalog/index.js'
import { testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'

type After = { after(fn: () => Promise<unknown>): void }

/** The default mcp.pageSize: these lists are far from needing more than mcp.maxPages pages. */
const PAGE_SIZE = 100

/** A reader whose files the test replaces; the next reload reads the new ones. */
function swappableReader(files: Record<string, unknown>) {
  let current = memoryReader(files)
  const reader: SourceReader = {
    listFiles: (dir) => current.listFiles(dir),
    readText: (path, root) => current.readText(path, root),
  }
  return { reader, set: (next: Record<string, unknown>) => (current = memoryReader(next)) }
}

/** One spec file of read-only operations named by `ids`. */
const specOf = (ids: readonly string[]) => ({
  'paged.yaml': openapi(
    Object.fromEntries(ids.map((id) => [`/${id}`, { get: { operationId: id, responses: ok } }])),
  ),
})

async function pagedApp(t: After) {
  const files = swappableReader(specOf(['seed']))
  const app = await testApp(t, { SPECS_DIR: MEMORY_DIR }, files.reader)
  const url = new URL('/mcp', await app.listen({ port: 0, host: '127.0.0.1' }))
  /** Serves `ids` from now on (one reload). */
  const serve = async (ids: readonly string[]) => {
    files.set(specOf(ids))
    const record = await app.catalogStore.reload('manual')
    assert.equal(record.outcome, 'ok', record.error)
  }
  return { app, url, serve }
}

const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}

/** Every name the gateway lists now, page by page over raw JSON-RPC (no reload meanwhile). */
async function listedNow(app: FastifyInstance): Promise<string[]> {
  const names: string[] = []
  let cursor: string | undefined
  do {
    const params = cursor ? { cursor } : {}
    const answer = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: LEGACY_HEADERS,
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params },
    })
    const { result } = answer.json() as { result: { tools: { name: string }[]; nextCursor?: string } }
    names.push(...result.tools.map((tool) => tool.name))
    cursor = result.nextCursor
  } while (cursor)
  return names
}

/** A fetch that, once `pages` tools/list answers have come back, runs `between` before handing on the last. */
function fetchReloadingAfter(pages: number, between: () => Promise<void>): typeof fetch {
  let seen = 0
  return async (input, init) => {
    const response = await fetch(input, init)
    const body = typeof init?.body === 'string' ? init.body : ''
    if (body.includes('"method":"tools/list"') && ++seen === pages) await between()
    return response
  }
}

/** How each official client lists every tool, over a fetch the test controls. */
type Lister = (
  url: URL,
  fetchImpl: typeof fetch,
) => Promise<{ list(): Promise<string[]>; close(): Promise<void> }>

const LISTERS: Record<string, Lister> = {
  // SDK 2.x's combined listTools(): it walks every page itself (2026-07-28, the fast path).
  'SDK 2.x listTools()': async (url, fetchImpl) => {
    const client = new Client2({ name: 'toolgate-test', version: '1.0.0' })
    await client.connect(new Transport2(url, { fetch: fetchImpl }))
    return {
      list: async () => (await client.listTools()).tools.map((tool) => tool.name),
      close: () => client.close(),
    }
  },
  // SDK 2.x on a 2025 revision, its combined listTools() (the SDK's own handler).
  'SDK 2.x listTools() (2025-11-25)': async (url, fetchImpl) => {
    const client = new Client2(
      { name: 'toolgate-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'legacy' } },
    )
    await client.connect(new Transport2(url, { fetch: fetchImpl }))
    return {
      list: async () => (await client.listTools()).tools.map((tool) => tool.name),
      close: () => client.close(),
    }
  },
  // SDK 2.x page by page: the first page by request(), the next ones by listTools({ cursor }).
  'SDK 2.x pages': async (url, fetchImpl) => {
    const client = new Client2({ name: 'toolgate-test', version: '1.0.0' })
    await client.connect(new Transport2(url, { fetch: fetchImpl }))
    return {
      list: async () => {
        let page = (await client.request({ method: 'tools/list' })) as {
          tools: { name: string }[]
          nextCursor?: string
        }
        const names = page.tools.map((tool) => tool.name)
        while (page.nextCursor) {
          page = await client.listTools({ cursor: page.nextCursor })
          names.push(...page.tools.map((tool) => tool.name))
        }
        return names
      },
      close: () => client.close(),
    }
  },
  // SDK 1.x has no combined list: listTools() is one page, the caller follows nextCursor.
  'SDK 1.x pages': async (url, fetchImpl) => {
    const client = new Client1({ name: 'toolgate-test', version: '1.0.0' })
    await client.connect(new Transport1(url, { fetch: fetchImpl }))
    return {
      list: async () => {
        const names: string[] = []
        let cursor: string | undefined
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined)
          names.push(...page.tools.map((tool) => tool.name))
          cursor = page.nextCursor
        } while (cursor)
        return names
      },
      close: () => client.close(),
    }
  },
  // @openai/agents' MCP server (agents-core), as an agent lists its tools: defaults throughout.
  '@openai/agents MCPServerStreamableHttp': async (url, fetchImpl) => {
    const server = new MCPServerStreamableHttp({ url: url.href, fetch: fetchImpl })
    await server.connect()
    return {
      list: async () => (await server.listTools()).map((tool) => tool.name),
      close: () => server.close(),
    }
  },
}

/** Two catalogs of a few pages: the second drops some of the first's tools and adds others. */
const catalogs = fc
  .record({
    before: fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { minLength: PAGE_SIZE + 1, maxLength: 320 }),
    after: fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 320 }),
    reloadAfterPage: fc.integer({ min: 1, max: 3 }),
  })
  .filter(({ before, after }) => before.join() !== after.join())
  .map(({ before, after, reloadAfterPage }) => ({
    before: before.map((n) => `op${String(n).padStart(3, '0')}`),
    after: after.map((n) => `op${String(n).padStart(3, '0')}`),
    // Within the first list, before its last page: the reload falls between two of its pages.
    reloadAfterPage: Math.min(reloadAfterPage, Math.ceil(before.length / PAGE_SIZE) - 1),
  }))

describe('a reload between two tools/list pages, per official client', () => {
  for (const [name, lister] of Object.entries(LISTERS)) {
    test(`${name}: the new catalog exactly, or an error it surfaces; never a mix`, async (t) => {
      const { app, url, serve } = await pagedApp(t)
      const outcomes = { newCatalog: 0, error: 0 }
      await fc.assert(
        fc.asyncProperty(catalogs, async ({ before, after, reloadAfterPage }) => {
          await serve(before)
          const old = await listedNow(app)
          const client = await lister(
            url,
            fetchReloadingAfter(reloadAfterPage, () => serve(after)),
          )
          try {
            const listing = await client.list().then(
              (names) => ({ names }),
              (error: unknown) => ({ error }),
            )
            const now = await listedNow(app)
            assert.notDeepEqual(now, old, 'the reload changed the list')
            if ('names' in listing) {
              assert.deepEqual(listing.names, now, 'a completed list is the new catalog, in its order')
              outcomes.newCatalog++
            } else {
              const { message, cause } = listing.error as Error & { cause?: Error }
              // @openai/agents words a failed continuation page itself; the gateway's error is its cause.
              assert.match(`${message} ${cause?.message ?? ''}`, /catalog changed|continuation page/)
              outcomes.error++
            }
            // The error surfaced; listing again from the start gives the new catalog exactly.
            assert.deepEqual(await client.list(), now)
          } finally {
            await client.close()
          }
        }),
        { numRuns: 6 },
      )
      t.diagnostic(`outcomes: ${JSON.stringify(outcomes)}`)
    })
  }
})

describe('cursors: bound to their list, strictly read', () => {
  const ids = Array.from({ length: 235 }, (_, i) => `op${String(i).padStart(3, '0')}`)
  const cursorOf = (v: string, view: string, strict: boolean, offset: number) =>
    Buffer.from(JSON.stringify({ v, view, strict, offset })).toString('base64url')

  const MODERN_META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'toolgate-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  }
  /** tools/list with `cursor` on a 2025 revision (the SDK's handler) or 2026-07-28 (the fast path's ladder). */
  const ask = (app: FastifyInstance, cursor: unknown, modern: boolean, query = '') =>
    app.inject({
      method: 'POST',
      url: `/mcp${query}`,
      headers: modern
        ? { ...LEGACY_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }
        : LEGACY_HEADERS,
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { cursor, ...(modern ? { _meta: MODERN_META } : {}) },
      }),
    })

  /** The answer is a JSON-RPC -32602 whose message names the cursor, short whatever the cursor. */
  const assertRefused = (answer: { statusCode: number; body: string }, what: string, why?: RegExp) => {
    assert.equal(answer.statusCode, 200, `${what}: ${answer.body.slice(0, 300)}`)
    const { error } = JSON.parse(answer.body) as { error?: { code: number; message: string } }
    assert.ok(error, `${what}: an error, not ${answer.body.slice(0, 300)}`)
    assert.equal(error.code, -32602, `${what}: ${error.message}`)
    assert.match(error.message, /cursor/i, what)
    if (why) assert.match(error.message, why, what)
    assert.ok(error.message.length < 400, `${what}: ${error.message.length} characters`)
  }

  test('a cursor of another version, profile or dialect is refused, naming why', async (t) => {
    const { app, serve } = await pagedApp(t)
    await serve(ids)
    const first = (await ask(app, undefined, false)).json().result as { nextCursor: string }
    const { v, view, strict, offset } = JSON.parse(Buffer.from(first.nextCursor, 'base64url').toString())
    assert.deepEqual({ view, strict, offset }, { view: 'discover', strict: false, offset: PAGE_SIZE })
    for (const modern of [false, true]) {
      const second = (await ask(app, first.nextCursor, modern)).json().result as { tools: unknown[] }
      assert.equal(second.tools.length, PAGE_SIZE)
      assertRefused(await ask(app, first.nextCursor, modern, '?strict=true'), 'strict', /another list/)
      assertRefused(await ask(app, cursorOf(v, 'other', false, 100), modern), 'view', /another list/)
      assertRefused(await ask(app, cursorOf(v, view, false, 235), modern), 'past the end', /outside/)
    }
    await serve(ids.slice(1))
    for (const modern of [false, true])
      assertRefused(await ask(app, first.nextCursor, modern), 'reloaded', /catalog changed/)
  })

  test('hostile cursors of any shape: a -32602 naming the cursor on both paths, never a crash', async (t) => {
    const { app, serve } = await pagedApp(t)
    await serve(ids)
    const { nextCursor } = (await ask(app, undefined, false)).json().result as { nextCursor: string }
    const issued = JSON.parse(Buffer.from(nextCursor, 'base64url').toString()) as Record<string, unknown>
    const b64 = (text: string) => Buffer.from(text).toString('base64url')
    const hostile = fc.oneof(
      fc.string({ maxLength: 600 }),
      fc.string({ unit: 'binary', maxLength: 100 }),
      fc.jsonValue().map((value) => b64(JSON.stringify(value))),
      // An issued cursor with one member changed, added or dropped.
      fc
        .record({
          key: fc.constantFrom('v', 'view', 'strict', 'offset', 'extra', '__proto__'),
          value: fc.oneof(fc.jsonValue(), fc.integer(), fc.constant(undefined)),
        })
        // Another offset inside the list is a cursor this list could issue (another replica's
        // page size): read, not refused. Every other change is refused.
        .filter(
          ({ key, value }) =>
            key !== 'offset' ||
            !(typeof value === 'number' && Number.isInteger(value) && value > 0 && value < 235),
        )
        .map(({ key, value }) => {
          const changed: Record<string, unknown> = { ...issued }
          if (value === undefined) delete changed[key]
          else Object.defineProperty(changed, key, { value, enumerable: true })
          return b64(JSON.stringify(changed))
        }),
      // The issued cursor in another base64 form, or padded, spaced or truncated.
      fc.constantFrom(
        Buffer.from(JSON.stringify(issued)).toString('base64'),
        `${nextCursor}=`,
        ` ${nextCursor}`,
        nextCursor.slice(0, -1),
        b64(JSON.stringify(issued, null, 1)),
        `${nextCursor}${'A'.repeat(100_000)}`,
      ),
    )
    await fc.assert(
      fc.asyncProperty(hostile, fc.boolean(), async (cursor, modern) => {
        fc.pre(cursor !== nextCursor)
        assertRefused(await ask(app, cursor, modern), JSON.stringify(cursor).slice(0, 120))
      }),
      { numRuns: 300 },
    )
    // Not a string at all: the SDK's own -32602.
    for (const cursor of [7, null, {}, [], true])
      for (const modern of [false, true]) {
        const answer = await ask(app, cursor, modern)
        assert.equal(answer.statusCode, 200)
        assert.equal(
          answer.json().error?.code,
          -32602,
          `${JSON.stringify(cursor)}: ${answer.body.slice(0, 200)}`,
        )
      }
  })
})
