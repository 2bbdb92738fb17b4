// Issue 14, upstreams' classes 9 and 10, against real misbehaving upstreams on 127.0.0.1:
// `timeoutMs` bounds the whole call, body included; encoded bodies are decoded (bounded by
// maxResponseBytes); an answer that is not what it claims is a clear 502 that is not held
// against the upstream's circuit.
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { connect } from 'node:net'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import type { ToolOutcome } from '../../src/executor/index.js'
import { configFile, testApp } from '../helpers/app.js'
import { executorFor } from '../helpers/executor.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { catalogOf, MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

fc.configureGlobal({ includeErrorInReport: true })

const spec = openapi({
  '/r': { get: { operationId: 'read', responses: ok }, post: { operationId: 'write', responses: ok } },
})
const refusal = (outcome: ToolOutcome) => (outcome.kind === 'refusal' ? outcome.body : undefined)
const json = (outcome: ToolOutcome) =>
  outcome.kind === 'answer' && outcome.body.type === 'json'
    ? JSON.parse(outcome.body.bytes.toString())
    : outcome

const ENCODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (b) => gzipSync(b),
  'x-gzip': (b) => gzipSync(b),
  deflate: (b) => deflateSync(b),
  'deflate (raw, as many servers send it)': (b) => deflateRawSync(b),
  br: (b) => brotliCompressSync(b),
  identity: (b) => b,
}
const PHASES = ['headers', 'body', 'backoff'] as const
const HEADER_NAME: Record<string, string> = { 'deflate (raw, as many servers send it)': 'deflate' }

describe('one deadline for the whole call (issue 14 class 9)', () => {
  test("a call whose upstream sends no headers is stopped by its own deadline, not earlier by undici's timers", async (t) => {
    // undici's headersTimeout, equal to the deadline, ran from an earlier request on a reused
    // connection: a call after a quick answer ended 50-90 ms early, as undici's own error.
    const plan: ('answer' | 'hang')[] = []
    const upstream = await startUpstream(t, async (_r, res) => {
      if (plan.shift() === 'answer') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"ok":true}')
        return
      }
      await sleep(60_000) // no headers within the test; the socket is destroyed at close
    })
    const timed = async (call: (id: string, args: Record<string, unknown>) => Promise<ToolOutcome>) => {
      const started = performance.now()
      const outcome = await call('s:read', {})
      return { outcome, took: performance.now() - started }
    }
    for (const timeoutMs of [600, 1_200]) {
      const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
        services: { s: { upstream: upstream.url, timeoutMs } },
      })
      plan.push('hang', 'answer', 'hang', 'hang')
      const first = timed(call)
      await sleep(100)
      assert.deepEqual(json(await call('s:read', {})), { ok: true })
      await sleep(200)
      const second = timed(call)
      const third = sleep(50).then(() => timed(call))
      for (const { outcome, took } of [await first, await second, await third]) {
        assert.equal(outcome.status, 504)
        assert.match(String(refusal(outcome)?.error), new RegExp(`no complete answer within ${timeoutMs} ms`))
        assert.ok(took >= timeoutMs - 2, `${timeoutMs} ms deadline: stopped after ${Math.round(took)} ms`)
      }
    }
  })

  test('an upstream trickling its body past timeoutMs is a 504 at the deadline; one finishing inside it answers', {
    timeout: HANG_BOUND_MS,
  }, async (t) => {
    let bytesPerAnswer = 0
    let hungUp: Promise<boolean> = Promise.resolve(false)
    const upstream = await startUpstream(t, async (_r, res) => {
      // Whether the gateway closed the connection before the body was complete.
      hungUp = new Promise((resolve) => res.once('close', () => resolve(!res.writableFinished)))
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('[')
      for (let i = 0; i < bytesPerAnswer; i++) {
        await sleep(100)
        if (res.destroyed) return
        res.write(i === 0 ? '0' : ',0')
      }
      res.end(']')
    })
    const { call, client } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url, timeoutMs: 800 } },
    })
    bytesPerAnswer = 40 // 4 s of body, one chunk every 100 ms: no gap is ever long
    const started = performance.now()
    const trickled = await call('s:read', {})
    const took = performance.now() - started
    assert.equal(trickled.status, 504)
    assert.equal(refusal(trickled)?.code, 'TG_ERR_UPSTREAM_TIMEOUT')
    assert.match(String(refusal(trickled)?.error), /no complete answer within 800 ms/)
    // Not before the deadline; that it stopped at it, not at the body's end, is the hang-up below.
    assert.ok(took >= 750, `took ${Math.round(took)} ms`)
    // The gateway let go of the trickling upstream: its connection is closed, mid-body.
    assert.equal(await hungUp, true)
    bytesPerAnswer = 3
    assert.deepEqual(json(await call('s:read', {})), [0, 0, 0])
    // One timeout is one failure, as before: the circuit opens only at the threshold.
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
  })

  test('retries and their backoff stay inside the deadline', { timeout: HANG_BOUND_MS }, async (t) => {
    // The second answer asks for 50 s: a wait the deadline does not cut outlives the hang bound.
    let answers = 0
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(503, { 'retry-after': answers++ === 0 ? '1' : '50' })
      res.end()
    })
    const catalog = await catalogOf({
      's.yaml': openapi({
        '/r': {
          get: {
            operationId: 'read',
            'x-cli-retry': { maxAttempts: 5, baseDelayMs: 2_000, maxDelayMs: 60_000 },
            responses: ok,
          },
        },
      }),
    })
    const { call } = executorFor(t, catalog, {
      services: { s: { upstream: upstream.url, timeoutMs: 1_200 } },
    })
    const started = performance.now()
    const outcome = await call('s:read', {})
    const took = performance.now() - started
    assert.equal(outcome.status, 504, JSON.stringify(outcome))
    assert.ok(took >= 1_150, `stopped after ${Math.round(took)} ms, before its 1,200 ms deadline`)
    assert.equal(upstream.received.length, 2) // the first try, and the one after Retry-After: 1 s
  })

  test("a caller who goes away cancels the call: 'aborted' whatever its reason, and the circuit is not told", async (t) => {
    // The MCP SDK aborts a handler's signal with the client's reason (a string) on
    // notifications/cancelled, and with an McpError when the transport closes.
    const reasons = [
      undefined,
      'user pressed stop',
      Object.assign(new Error('Connection closed'), { code: -32000 }),
    ]
    let phase: 'headers' | 'body' | 'backoff' = 'headers'
    const upstream = await startUpstream(t, async (_r, res) => {
      if (phase === 'backoff') {
        res.writeHead(503, { 'retry-after': '1' })
        res.end()
        return
      }
      if (phase === 'body') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('[')
      }
      // Waits until the gateway hangs up (no timer left behind to hold the test process open).
      await new Promise((resolve) => res.once('close', resolve))
    })
    const catalog = await catalogOf({
      's.yaml': openapi({
        '/r': {
          get: {
            operationId: 'read',
            'x-cli-retry': { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 5_000 },
            responses: ok,
          },
        },
      }),
    })
    const { call, client } = executorFor(t, catalog, {
      services: { s: { upstream: upstream.url, timeoutMs: 10_000 } },
      client: { breaker: { failureThreshold: 1, cooldownMs: 30_000 } },
    })
    for (const reason of reasons) {
      for (const next of PHASES) {
        phase = next
        const controller = new AbortController()
        setTimeout(() => controller.abort(reason), 100)
        const outcome = await call('s:read', {}, { signal: controller.signal })
        const label = `${phase}, reason ${String(reason)}: ${JSON.stringify(outcome)}`
        assert.equal(refusal(outcome)?.code, 'TG_ERR_UPSTREAM_UNREACHABLE', label)
        assert.match(String(refusal(outcome)?.error), /cancelled/, label)
        assert.deepEqual(Object.values(client.breaker.states()), ['closed'], label)
      }
    }
  })

  test("the caller's signal is listened to only while the call runs, and a late abort stops nothing", async (t) => {
    let listening = 0
    const controller = new AbortController()
    const { signal } = controller
    const upstream = await startUpstream(t, (_r, res) => {
      listening = getEventListeners(signal, 'abort').length // the call in flight
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
    })
    const catalog = await catalogOf({
      's.yaml': openapi({ '/r': { get: { operationId: 'read', responses: ok } } }),
    })
    const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    const outcome = await call('s:read', {}, { signal })
    assert.deepEqual(json(outcome), { ok: true })
    assert.equal(listening, 1, 'while the upstream answered, the call listened to the signal')
    assert.equal(getEventListeners(signal, 'abort').length, 0, 'once the call ended, it stopped listening')
    controller.abort()
    assert.equal(signal.aborted, true)
  })
})

describe('the REST route and the body cap (undici dispatch, no stream)', () => {
  test('a caller of POST /tools/:name who disconnects mid-call closes the upstream connection; the circuit is not told', async (t) => {
    let upstreamClosed: (early: boolean) => void = () => undefined
    const closed = new Promise<boolean>((resolve) => {
      upstreamClosed = resolve
    })
    let arrived: () => void = () => undefined
    const received = new Promise<void>((resolve) => {
      arrived = resolve
    })
    const upstream = await startUpstream(t, async (_r, res) => {
      res.once('close', () => upstreamClosed(!res.writableFinished))
      arrived()
      // Answers nothing until the gateway hangs up (no timer left behind).
      await new Promise((resolve) => res.once('close', resolve))
    })
    const config = await configFile(
      [
        'access: open',
        // One failure opens the circuit: a call ended by its deadline, not by the caller's
        // disconnect, would leave it open.
        'upstream: { breaker: { failureThreshold: 1 } }',
        'services:',
        '  s:',
        `    upstream: ${upstream.url}`,
        '    timeoutMs: 10000',
      ].join('\n'),
    )
    const app = await testApp(
      t,
      { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config },
      memoryReader({ 's.yaml': spec }),
    )
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = new URL(address)
    const socket = connect(Number(port), '127.0.0.1')
    socket.on('error', () => undefined)
    socket.write(
      'POST /tools/s_read HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    )
    await received
    socket.destroy()
    assert.equal(await closed, true)
    assert.deepEqual(Object.values(app.upstreamClient.breaker.states()), ['closed'])
  })

  test('a declared Content-Length over maxResponseBytes is a 502 too large before any more body arrives', async (t) => {
    const upstream = await startUpstream(t, async (_r, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 * 1024 * 1024 })
      res.write('a')
      // The rest never comes: a gateway reading on would wait for its deadline (a 504).
      await new Promise((resolve) => res.once('close', resolve))
    })
    const { call, client } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url, timeoutMs: 60_000 } },
      client: { maxResponseBytes: 1024 * 1024 },
    })
    const outcome = await call('s:read', {})
    assert.equal(outcome.status, 502)
    assert.equal(refusal(outcome)?.code, 'TG_ERR_UPSTREAM_RESPONSE_TOO_LARGE')
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
  })

  test('an empty answer and a 1xx before the answer come through as the final answer', async (t) => {
    const upstream = await startUpstream(t, (received, res) => {
      if (received.method === 'POST') {
        res.writeProcessing()
        res.writeHead(201, { location: '/r/1' })
        res.end()
        return
      }
      res.writeHead(204)
      res.end()
    })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const created = await call('s:write', {})
    assert.equal(created.status, 201)
    assert.equal(created.kind === 'answer' && created.body.type, 'empty')
    assert.deepEqual(created.headers, { location: '/r/1' })
    const empty = await call('s:read', {})
    assert.equal(empty.status, 204)
    assert.equal(empty.kind === 'answer' && empty.body.type, 'empty')
  })
})

describe('calls that say nothing about the upstream leave its circuit alone', () => {
  test('a half-open probe the caller cancels frees the probe: the next call is let through', async (t) => {
    let mode: 'fail' | 'hang' | 'ok' = 'fail'
    const upstream = await startUpstream(t, async (_r, res) => {
      // A hanging probe answers nothing until the gateway hangs up (no timer left to hold the process).
      if (mode === 'hang') return void (await new Promise((resolve) => res.once('close', resolve)))
      res.writeHead(mode === 'fail' ? 503 : 200, { 'content-type': 'application/json' })
      res.end('{}')
    })
    const { call, client } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
      client: { breaker: { failureThreshold: 1, cooldownMs: 100 } },
    })
    assert.equal((await call('s:write', {})).status, 503)
    // A 503 answer counts against this caller's circuit, not the origin's (issue 41 class 5).
    assert.deepEqual(Object.values(client.callerBreaker.states()), ['open'])
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
    await sleep(150)
    mode = 'hang'
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    await call('s:write', {}, { signal: controller.signal })
    mode = 'ok'
    const next = await call('s:write', {})
    assert.equal(next.status, 200, JSON.stringify(next))
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
    assert.deepEqual(client.callerBreaker.states(), {}, 'a closed caller circuit is forgotten')
  })

  test('a request undici will not send (a header name from the spec) is a 500 naming it, not an upstream failure', async (t) => {
    const upstream = await startUpstream(t)
    const broken = openapi({
      '/r': {
        get: {
          operationId: 'read',
          parameters: [{ name: 'X Bad Name', in: 'header', schema: { type: 'string' } }],
          responses: ok,
        },
      },
    })
    const catalog = await catalogOf({ 's.yaml': broken })
    const { call, client } = executorFor(t, catalog, {
      services: { s: { upstream: upstream.url } },
      client: { breaker: { failureThreshold: 1, cooldownMs: 30_000 } },
    })
    const [argument] = Object.keys(catalog.tools[0]!.binding.arguments)
    for (let i = 0; i < 3; i++) {
      const outcome = await call('s:read', { [argument!]: 'v' })
      assert.equal(outcome.status, 500)
      assert.equal(refusal(outcome)?.code, 'TG_ERR_UPSTREAM_REQUEST_UNSENDABLE')
      assert.match(String(refusal(outcome)?.error), /header/)
    }
    assert.equal(upstream.received.length, 0)
    assert.ok(Object.values(client.breaker.states()).every((state) => state === 'closed'))
    assert.equal((await call('s:read', {})).status, 200)
  })
})

describe('encoded bodies are decoded, bounded (issue 14 class 10)', () => {
  test('gzip, x-gzip, deflate (zlib and raw), br, identity and stacks of them decode to the same JSON', async (t) => {
    let answer: { body: Buffer; encoding: string } = { body: Buffer.from('{}'), encoding: 'identity' }
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': answer.encoding })
      res.end(answer.body)
    })
    const { call, client } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.array(fc.constantFrom(...Object.keys(ENCODERS)), { minLength: 1, maxLength: 3 }),
        async (value, encodings) => {
          let body: Buffer = Buffer.from(JSON.stringify(value))
          for (const encoding of encodings) body = ENCODERS[encoding]!(body)
          answer = { body, encoding: encodings.map((e) => HEADER_NAME[e] ?? e).join(', ') }
          const outcome = await call('s:read', {})
          assert.equal(outcome.status, 200, JSON.stringify(outcome))
          assert.deepEqual(json(outcome), JSON.parse(JSON.stringify(value)))
        },
      ),
      { numRuns: 150 },
    )
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
  })

  test('a decompression bomb stops at maxResponseBytes: 502 too large, quickly, memory bounded', async (t) => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024)) // 64 MiB of zeros in ~64 KB
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      res.end(bomb)
    })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
      client: { maxResponseBytes: 1024 * 1024 },
    })
    const rssBefore = process.memoryUsage().rss
    const outcome = await call('s:read', {})
    assert.equal(outcome.status, 502)
    assert.equal(refusal(outcome)?.code, 'TG_ERR_UPSTREAM_RESPONSE_TOO_LARGE')
    const grown = (process.memoryUsage().rss - rssBefore) / 1024 / 1024
    assert.ok(grown < 100, `RSS grew ${Math.round(grown)} MB decoding a 1 MiB-capped body`)
  })

  test('an encoding the gateway cannot decode, or bytes that do not decode: 502 naming it, circuit closed', async (t) => {
    const answers = [
      [
        'zstd',
        Buffer.from('(\xb5/\xfd whatever', 'latin1'),
        /content-encoding "zstd" is not one the gateway decodes/,
      ],
      ['compress', Buffer.from('xx'), /content-encoding "compress"/],
      ['gzip', Buffer.from('definitely not gzip'), /its gzip body does not decode/],
      ['br', Buffer.from([0xff, 0xff, 0xff, 0xff]), /its br body does not decode/],
      ['gzip, snappy', gzipSync('{}'), /content-encoding "snappy"/],
    ] as const
    let i = 0
    const upstream = await startUpstream(t, (_r, res) => {
      const [encoding, body] = answers[i++ % answers.length]!
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding })
      res.end(body)
    })
    const { call, client } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
      client: { breaker: { failureThreshold: 2, cooldownMs: 30_000 } },
    })
    for (const [, , message] of [...answers, ...answers]) {
      const outcome = await call('s:read', {})
      assert.equal(outcome.status, 502)
      assert.equal(refusal(outcome)?.code, 'TG_ERR_UPSTREAM_RESPONSE_INVALID')
      assert.equal(refusal(outcome)?.upstreamStatus, 200)
      assert.match(String(refusal(outcome)?.error), message)
    }
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
  })
})

describe('a body labelled JSON must be JSON (issue 14 class 10)', () => {
  test('not JSON under a JSON label: 502 with the upstream status; real JSON relays byte for byte', async (t) => {
    let answer = { status: 200, type: 'application/json', body: '' }
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type })
      res.end(answer.body)
    })
    const { call, client } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
      client: { breaker: { failureThreshold: 2, cooldownMs: 30_000 } },
    })
    const notJson = fc
      .oneof(
        fc.constant('<html><body>Bad gateway</body></html>'),
        fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)),
        fc.string(),
      )
      .filter((text) => {
        try {
          JSON.parse(text)
          return false
        } catch {
          return text.length > 0
        }
      })
    await fc.assert(
      fc.asyncProperty(
        notJson,
        fc.constantFrom(200, 201, 404, 500),
        fc.constantFrom('application/json', 'application/problem+json; charset=utf-8'),
        async (text, status, type) => {
          answer = { status, type, body: text }
          const outcome = await call('s:read', {})
          assert.equal(outcome.status, 502)
          assert.equal(refusal(outcome)?.code, 'TG_ERR_UPSTREAM_RESPONSE_INVALID')
          assert.equal(refusal(outcome)?.upstreamStatus, status)
          assert.match(
            String(refusal(outcome)?.error),
            /is labelled application\/(problem\+)?json but the body is not JSON/,
          )
        },
      ),
      { numRuns: 100 },
    )
    assert.deepEqual(Object.values(client.breaker.states()), ['closed'])
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const text = JSON.stringify(value, null, 1)
        answer = { status: 200, type: 'application/json', body: text }
        const outcome = await call('s:read', {})
        assert.equal(
          outcome.kind === 'answer' && outcome.body.type === 'json' && outcome.body.bytes.toString(),
          text,
        )
      }),
      { numRuns: 100 },
    )
    answer = { status: 200, type: 'application/json', body: '\ufeff{"bom":true}' }
    assert.deepEqual(json(await call('s:read', {})), { bom: true })
  })
})

describe('over MCP', () => {
  test('a gzip answer arrives as its text (isError false); JSON that is not JSON is an isError result', async (t) => {
    let answer = { encoding: 'gzip', body: gzipSync('{"greeting":"grüße"}') }
    const upstream = await startUpstream(t, (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': answer.encoding })
      res.end(answer.body)
    })
    const config = await configFile(['services:', '  s:', `    upstream: ${upstream.url}`].join('\n'))
    const app = await testApp(
      t,
      { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config },
      memoryReader({ 's.yaml': spec }),
    )
    const callOverMcp = async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 's_read', arguments: {} } },
      })
      const text = res.body.startsWith('{') ? res.body : /^data: (.*)$/m.exec(res.body)![1]!
      return JSON.parse(text).result as {
        isError: boolean
        content: { text: string }[]
        structuredContent?: unknown
      }
    }
    const decoded = await callOverMcp()
    assert.equal(decoded.isError, false)
    assert.equal(decoded.content[0]!.text, '{"greeting":"grüße"}')
    assert.deepEqual(decoded.structuredContent, { greeting: 'grüße' })
    answer = { encoding: 'identity', body: Buffer.from('<html>oops</html>') }
    const invalid = await callOverMcp()
    assert.equal(invalid.isError, true)
    assert.match(
      invalid.content[0]!.text,
      /cannot relay: it is labelled application\/json but the body is not JSON/,
    )
  })
})
