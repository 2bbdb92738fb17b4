// Issue 41 class 6: upstream answers are relayed as the upstream's, never as the gateway's own.
// A raw upstream (a net server writing its own status line) answers every status from 100 to 999
// with generated content types, bodies and Location values, over REST and MCP: a status HTTP does
// not define (or a 1xx with no final answer) is a 502 naming it; a 3xx is data, not a redirect;
// text is text/plain and nothing relayed is sniffed or run as a page of the gateway's origin.
import assert from 'node:assert/strict'
import { createServer, type Socket } from 'node:net'
import { test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { configFile, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'

fc.configureGlobal({ includeErrorInReport: true })

interface RawAnswer {
  readonly status: number
  readonly contentType: string | undefined
  readonly location: string | undefined
  readonly body: string
}

/** A TCP server that answers each request with the current RawAnswer, byte for byte, then closes. */
async function rawUpstream(t: { after(fn: () => Promise<unknown>): void }) {
  const state: { answer: RawAnswer; requests: number } = {
    answer: { status: 200, contentType: undefined, location: undefined, body: '' },
    requests: 0,
  }
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    socket.once('data', () => {
      state.requests++
      const { status, contentType, location, body } = state.answer
      const bytes = Buffer.from(body)
      const head = [
        `HTTP/1.1 ${status} Whatever`,
        ...(contentType === undefined ? [] : [`content-type: ${contentType}`]),
        ...(location === undefined ? [] : [`location: ${location}`]),
        `content-length: ${bytes.length}`,
        'connection: close',
      ]
      socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), bytes]))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, state }
}

const spec = openapi({ '/r': { get: { operationId: 'read', responses: ok } } })

const JSON_TYPES = ['application/json', 'application/problem+json; charset=utf-8', 'application/vnd.x+json']
const ACTIVE_TYPES = [
  'text/html',
  'text/html; charset=utf-8',
  'application/xhtml+xml',
  'application/xml',
  'text/xml',
  'image/svg+xml',
  'text/javascript',
  'application/javascript',
  'text/css',
  'application/json, text/html', // the header twice, joined: a browser reads the last
]
const INERT_TYPES = ['text/plain', 'text/csv', 'application/octet-stream', 'image/png']
const contentType = fc.option(fc.constantFrom(...JSON_TYPES, ...ACTIVE_TYPES, ...INERT_TYPES), {
  nil: undefined,
})
const location = fc.option(
  fc.oneof(fc.webUrl(), fc.constantFrom('/login', '//evil.example/x', 'javascript:alert(1)', '/tools/other')),
  { nil: undefined },
)
const html = fc.constantFrom(
  '<html><script>alert(document.domain)</script></html>',
  '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
  'alert(1)//',
)
const status = fc.oneof(
  fc.integer({ min: 100, max: 999 }),
  fc.constantFrom(100, 101, 103, 200, 201, 204, 300, 301, 302, 303, 304, 307, 308, 404, 503, 599, 600, 999),
)
const answers = fc
  .record({ status, contentType, location, text: fc.oneof(html, fc.string()), value: fc.jsonValue() })
  .map(({ status, contentType, location, text, value }): RawAnswer => {
    const json = contentType !== undefined && /^application\/([\w.+-]+\+)?json/.test(contentType)
    // A status whose answer has no body gets none: bytes after it would be a second, bad answer.
    const bodiless = status < 200 || status === 204 || status === 205 || status === 304
    return { status, contentType, location, body: bodiless ? '' : json ? JSON.stringify(value) : text }
  })

/** Types a browser could run or render as a page of the gateway's origin. */
const ACTIVE = /html|xml|javascript|css|svg/i

async function appOver(t: Parameters<typeof testApp>[0], url: string): Promise<FastifyInstance> {
  const config = await configFile(
    [
      // No breaker in the way: generated 502–504 answers in a row would open this caller's circuit.
      'upstream: { breaker: { failureThreshold: 1000 } }',
      'services:',
      '  s:',
      `    upstream: ${url}`,
    ].join('\n'),
  )
  return testApp(t, { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config }, memoryReader({ 's.yaml': spec }))
}

const outside = (status: number) => status < 200 || status > 599

test('REST: every status 100–999, every content type, every Location: relayed as the upstream’s, never the gateway’s own', async (t) => {
  const upstream = await rawUpstream(t)
  const app = await appOver(t, upstream.url)
  await fc.assert(
    fc.asyncProperty(answers, async (answer) => {
      upstream.state.answer = answer
      const res = await app.inject({ method: 'POST', url: '/tools/s_read', payload: {} })
      const label = `${JSON.stringify(answer)} → ${res.statusCode} ${res.headers['content-type']} ${res.body.slice(0, 300)}`
      assert.equal(res.headers['x-content-type-options'], 'nosniff', label)
      // Location is relayed only beside a status no client follows (a 201's new resource).
      if (answer.status >= 300 && answer.status < 400) assert.equal(res.headers.location, undefined, label)
      assert.ok(!ACTIVE.test(String(res.headers['content-type'] ?? '')), label)
      assert.ok(res.statusCode < 300 || res.statusCode >= 400, `answered as a redirect: ${label}`)
      const { status } = answer
      if (outside(status)) {
        assert.equal(res.statusCode, 502, label)
        assert.equal(res.json().code, 'TG_ERR_UPSTREAM_RESPONSE_INVALID', label)
        assert.equal(res.json().upstreamStatus, status, label)
        assert.match(res.json().error, new RegExp(`\\b${status}\\b`), label)
        return
      }
      assert.equal(res.headers['content-security-policy'], "default-src 'none'; sandbox", label)
      const json =
        answer.contentType !== undefined && /^application\/([\w.+-]+\+)?json/.test(answer.contentType)
      if (status >= 300 && status < 400) {
        assert.equal(res.statusCode, 200, label)
        const data = res.json()
        assert.equal(data.upstreamStatus, status, label)
        assert.equal(data.location, answer.location ?? null, label)
        if (answer.body === '') assert.equal(data.body, null, label)
        else if (json) assert.deepEqual(data.body, JSON.parse(answer.body), label)
        else if (/^text\//.test(answer.contentType ?? ''))
          assert.deepEqual(data.body, { contentType: answer.contentType, text: answer.body }, label)
        return
      }
      assert.equal(res.statusCode, status, label)
      if (answer.body === '' || status === 204 || status === 205) return
      if (json) {
        assert.equal(res.body, answer.body, label)
        assert.match(String(res.headers['content-type']), /^application\/([\w.+-]+\+)?json/, label)
      } else if (/^(text\/|application\/(xml|javascript|[\w.+-]+\+xml))/.test(answer.contentType ?? '')) {
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8', label)
        assert.equal(res.headers['x-toolgate-upstream-content-type'], answer.contentType, label)
        assert.equal(res.body, answer.body, label)
      } else {
        assert.equal(res.json().encoding, 'base64', label)
        assert.equal(Buffer.from(res.json().data, 'base64').toString(), answer.body, label)
      }
    }),
    { numRuns: 300 },
  )
  // The gateway still answers an ordinary call.
  upstream.state.answer = { status: 200, contentType: 'application/json', location: undefined, body: '{}' }
  assert.equal((await app.inject({ method: 'POST', url: '/tools/s_read', payload: {} })).statusCode, 200)
})

test('MCP: the same answers are isError results naming a status HTTP does not define, and a redirect is data', async (t) => {
  const upstream = await rawUpstream(t)
  const app = await appOver(t, upstream.url)
  await fc.assert(
    fc.asyncProperty(answers, async (answer) => {
      upstream.state.answer = answer
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 's_read', arguments: {} } },
      })
      const text = res.body.startsWith('{') ? res.body : /^data: (.*)$/m.exec(res.body)![1]!
      const { result } = JSON.parse(text) as {
        result: {
          isError: boolean
          content: { text?: string }[]
          structuredContent?: Record<string, unknown>
        }
      }
      const label = `${JSON.stringify(answer)} → ${JSON.stringify(result).slice(0, 300)}`
      const { status } = answer
      if (outside(status)) {
        assert.equal(result.isError, true, label)
        assert.match(String(result.content[0]?.text), /cannot relay/, label)
        assert.match(String(result.content[0]?.text), new RegExp(`\\b${status}\\b`), label)
      } else if (status >= 300 && status < 400) {
        assert.equal(result.isError, false, label)
        assert.equal(result.structuredContent?.upstreamStatus, status, label)
        assert.equal(result.structuredContent?.location, answer.location ?? null, label)
      }
    }),
    { numRuns: 150 },
  )
})

test('a 101 with an Upgrade header and a 100 nobody asked for are 502s naming 101 and 100', async (t) => {
  const upstream = await rawUpstream(t)
  const app = await appOver(t, upstream.url)
  for (const status of [100, 101]) {
    upstream.state.answer = { status, contentType: undefined, location: undefined, body: '' }
    const res = await app.inject({ method: 'POST', url: '/tools/s_read', payload: {} })
    assert.equal(res.statusCode, 502, res.body)
    assert.equal(res.json().upstreamStatus, status)
  }
  // undici's `bad upgrade`: the Upgrade header is what sets llhttp's upgrade flag.
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.once('data', () =>
      socket.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const upgrading = await appOver(t, `http://127.0.0.1:${(server.address() as { port: number }).port}`)
  const res = await upgrading.inject({ method: 'POST', url: '/tools/s_read', payload: {} })
  assert.equal(res.statusCode, 502, res.body)
  assert.equal(res.json().code, 'TG_ERR_UPSTREAM_RESPONSE_INVALID')
  assert.equal(res.json().upstreamStatus, 101)
  assert.match(res.json().error, /switched protocols \(101\)/)
  for (const socket of sockets) socket.destroy()
})
