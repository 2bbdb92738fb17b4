// Issue 16, bad input: each malformed 2026-07-28 request gets the revision's error (a JSON-RPC
// error with a 4xx, or an Invalid Request), never a 500; the endpoint keeps answering.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { testApp } from '../helpers/app.js'

const MODERN = '2026-07-28'
const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bad-input', version: '1' },
}
const headers = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  ...extra,
})

describe('MCP 2026-07-28 bad input', () => {
  test('each case gets its prescribed error, never a 500', async (t) => {
    const app = await testApp(t)
    const post = (payload: unknown, extra: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: '/mcp',
        headers: headers(extra),
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      })
    const discover = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }

    const good = await post(discover, { 'mcp-method': 'server/discover' })
    assert.equal(good.statusCode, 200)
    assert.deepEqual(good.json().result.supportedVersions, [MODERN])

    const cases: [string, unknown, Record<string, string>, number, RegExp][] = [
      [
        'the version header disagrees with _meta',
        discover,
        { 'mcp-method': 'server/discover', 'mcp-protocol-version': '2025-11-25' },
        -32020,
        /disagree|mismatch/i,
      ],
      [
        'an unknown revision',
        {
          ...discover,
          params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
        },
        { 'mcp-method': 'server/discover', 'mcp-protocol-version': '2099-01-01' },
        -32022,
        /Unsupported protocol version: 2099-01-01/,
      ],
      ['no Mcp-Method header', discover, {}, -32020, /Mcp-Method/],
      [
        'a method header naming another method',
        discover,
        { 'mcp-method': 'tools/list' },
        -32020,
        /disagree|mismatch/i,
      ],
      [
        'server/discover with a garbage _meta',
        { ...discover, params: { _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': 7 } } },
        { 'mcp-method': 'server/discover' },
        -32602,
        /clientCapabilities/,
      ],
      ['a batch', [discover, discover], { 'mcp-method': 'server/discover' }, -32600, /batch/i],
    ]
    for (const [name, payload, extra, code, message] of cases) {
      const res = await post(payload, extra)
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${name}: ${res.statusCode} ${res.body}`)
      const { error } = res.json() as { error: { code: number; message: string } }
      assert.equal(error.code, code, `${name}: ${res.body}`)
      assert.match(error.message, message, name)
    }

    const huge = await post({ ...discover, params: { _meta: { ...meta, pad: 'x'.repeat(2 * 1024 * 1024) } } })
    assert.equal(huge.statusCode, 413, 'an oversized message is refused before it is parsed')

    // Generated garbage params on server/discover: always a 4xx JSON-RPC error or a result.
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (params) => {
        const res = await post(
          { jsonrpc: '2.0', id: 2, method: 'server/discover', params },
          {
            'mcp-method': 'server/discover',
          },
        )
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 200)}`)
      }),
      { numRuns: 100 },
    )
    assert.equal((await post(discover, { 'mcp-method': 'server/discover' })).statusCode, 200)
  })
})
