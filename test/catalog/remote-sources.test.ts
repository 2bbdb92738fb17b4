// seed 004's fail-fast rules, each against a real local server playing the remote source.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { fetchRemoteTools, type RemoteSourceOptions } from '../../src/catalog/index.js'
import { Secret } from '../../src/config/secrets.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { remoteTool } from '../helpers/remote-tools.js'
import { closedPort, startUpstream } from '../helpers/upstreams.js'

const tool = remoteTool

async function sourceAnswering(
  t: { after(fn: () => Promise<unknown>): void },
  status: number,
  body: string,
): Promise<RemoteSourceOptions> {
  const upstream = await startUpstream(t, (_r, res) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(body)
  })
  return { id: 'cms', baseUrl: upstream.url, format: 'tools-list', required: true }
}

describe('remote tool sources: seed 004 fail-fast rules', () => {
  const cases: [string, number, string, RegExp][] = [
    [
      'an HTTP error',
      500,
      '{"error":"boom"}',
      /remote source cms \(http:\/\/127\.0\.0\.1:\d+\): HTTP 500 Internal Server Error from .*\/mcp\/tools\/list/,
    ],
    [
      'invalid JSON, with the response text',
      200,
      '<html>Maintenance</html>',
      /invalid JSON from .*Response: <html>Maintenance<\/html>/,
    ],
    [
      'a missing tools array, listing the keys',
      200,
      '{"items":[],"count":0}',
      /no "tools" array\. Response keys: items, count/,
    ],
    ['an empty tools list', 200, '{"tools":[]}', /no tools returned/],
    ['a tool that is not an object', 200, '{"tools":[42]}', /tool at index 0 is not an object/],
  ]
  for (const [what, status, body, message] of cases) {
    test(what, async (t) => {
      await assert.rejects(fetchRemoteTools(await sourceAnswering(t, status, body)), message)
    })
  }

  for (const field of ['name', 'description', 'inputSchema', 'endpoint', 'method', 'requiresAuth'] as const) {
    test(`a tool missing ${field}, named by index and field`, async (t) => {
      const { [field]: _, ...partial } = tool
      const source = await sourceAnswering(t, 200, JSON.stringify({ tools: [tool, partial] }))
      await assert.rejects(
        fetchRemoteTools(source),
        new RegExp(`tool at index 1 .*missing required field "${field}"`),
      )
    })
  }

  test('wrong types: requiresAuth not boolean, inputSchema not an object, an unknown method', async (t) => {
    for (const [patch, message] of [
      [{ requiresAuth: 'yes' }, /invalid requiresAuth: must be a boolean/],
      [{ inputSchema: 'object' }, /invalid inputSchema: must be an object/],
      [{ method: 'FETCH' }, /invalid method "FETCH"/],
    ] as const) {
      const source = await sourceAnswering(t, 200, JSON.stringify({ tools: [{ ...tool, ...patch }] }))
      await assert.rejects(fetchRemoteTools(source), message)
    }
  })

  test('a source that never answers times out (5 s in production; 300 ms here)', {
    timeout: HANG_BOUND_MS,
  }, async (t) => {
    const upstream = await startUpstream(t, async () => {
      await sleep(60_000)
    })
    await assert.rejects(
      fetchRemoteTools(
        { id: 'cms', baseUrl: upstream.url, format: 'tools-list', required: true },
        { timeoutMs: 300 },
      ),
      /did not answer within 0\.3 seconds/,
    )
  })

  test('an unreachable source names the reason', async (t) => {
    const port = await closedPort()
    await assert.rejects(
      fetchRemoteTools({
        id: 'cms',
        baseUrl: `http://127.0.0.1:${port}`,
        format: 'tools-list',
        required: true,
      }),
      /cannot reach .*ECONNREFUSED/,
    )
    assert.ok(t)
  })

  test('the OAuth token is sent to discovery', async (t) => {
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ tools: [tool] }))
    })
    const tools = await fetchRemoteTools({
      id: 'cms',
      baseUrl: upstream.url,
      format: 'tools-list',
      required: true,
      token: new Secret('t0k'),
    })
    assert.equal(upstream.received[0]?.headers.authorization, 'Bearer t0k')
    assert.deepEqual(
      tools.map((t) => [t.name, t.method, t.endpoint, t.requiresAuth, t.protocol]),
      [['node.create', 'POST', '/api/nodes', true, 'http']],
    )
  })
})

describe('remote tool sources: the Drupal jsonrpc_mcp format', () => {
  test('120 tools over three pages of 50 (nextCursor, null on the last): all of them, PHP [] properties repaired', async (t) => {
    const all = Array.from({ length: 120 }, (_, i) => ({
      name: `content.item${i}`,
      description: `Item ${i}`,
      inputSchema:
        i % 2
          ? { type: 'object', properties: [] }
          : { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      annotations: i % 3 === 0 ? { auth: { level: 'required', scopes: ['content:write'] } } : {},
    }))
    const upstream = await startUpstream(t, (received, res) => {
      const cursor = new URL(received.target, 'http://x').searchParams.get('cursor')
      const offset = cursor ? Number(Buffer.from(cursor, 'base64').toString()) : 0
      const next = offset + 50 < all.length ? Buffer.from(String(offset + 50)).toString('base64') : null
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ tools: all.slice(offset, offset + 50), nextCursor: next }))
    })
    const tools = await fetchRemoteTools({
      id: 'drupal',
      baseUrl: upstream.url,
      format: 'jsonrpc-mcp',
      required: true,
    })
    assert.equal(upstream.received.length, 3)
    assert.equal(tools.length, 120)
    assert.deepEqual(tools[1]?.inputSchema, { type: 'object', properties: {} })
    assert.deepEqual(
      [
        tools[0]?.endpoint,
        tools[0]?.method,
        tools[0]?.protocol,
        tools[0]?.requiresAuth,
        tools[1]?.requiresAuth,
      ],
      ['/mcp/tools/content.item0', 'POST', 'jsonrpc', true, false],
    )
  })
})
