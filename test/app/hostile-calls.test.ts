// Issue 14, callers' classes 1–3 through the app: hostile argument values sent as raw JSON text to
// `POST /tools/:name`, `/discovery/tools/:name` (Opal's envelope) and MCP `tools/call`. Every one
// is a 4xx (an isError result over MCP, never -32603) naming the argument; nothing reaches the
// upstream, its circuit stays closed, and the gateway goes on answering.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { configFile, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader } from '../helpers/memory-catalog.js'
import { PROBE_SPEC as spec } from '../helpers/probe-spec.js'
import { startUpstream } from '../helpers/upstreams.js'

fc.configureGlobal({ includeErrorInReport: true })

/** A hostile value as JSON text, where it goes, and the argument a refusal must name. */
interface Hostile {
  readonly args: string
  readonly argument: string
}

const jsonString = (s: string) => JSON.stringify(s) // lone surrogates come out as \ud800 escapes
const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`

const hostile: fc.Arbitrary<Hostile> = fc.oneof(
  // Class 1: characters a header cannot carry, in a header argument and a cookie-object key.
  fc.constantFrom('\u2603', '\u2028', '\x01', '\x7f', '\r\nX-Injected: 1', '\0', 'é').chain((bad) =>
    fc.constantFrom<Hostile>({
      args: `{"id":"x","X-Trace":${jsonString(`a${bad}b`)}}`,
      argument: 'X-Trace',
    }),
  ),
  // Class 3: lone surrogates in path, query, cookie and body; non-finite numbers; deep nesting.
  fc
    .constantFrom('\ud800', '\udfff', 'a\udbffz')
    .chain((bad) =>
      fc.constantFrom<Hostile>(
        { args: `{"id":${jsonString(bad)}}`, argument: 'id' },
        { args: `{"id":"x","q":${jsonString(bad)}}`, argument: 'q' },
        { args: `{"id":"x","pref":${jsonString(bad)}}`, argument: 'pref' },
        { args: `{"id":"x","jar":{${jsonString(bad)}:"v"}}`, argument: 'jar' },
        { args: `{"id":"x","note":${jsonString(bad)}}`, argument: 'note' },
      ),
    ),
  fc
    .constantFrom('1e309', '-1e309', '1e400')
    .chain((n) =>
      fc.constantFrom<Hostile>(
        { args: `{"id":"x","count":${n}}`, argument: 'count' },
        { args: `{"id":"x","data":{"a":[${n}]}}`, argument: 'data' },
      ),
    ),
  fc
    .integer({ min: 64, max: 20_000 })
    .map((depth): Hostile => ({ args: `{"id":"x","data":${nested(depth)}}`, argument: 'data' })),
)

type Surface = (app: FastifyInstance, args: string) => Promise<{ status: number; refusal: string }>

const SURFACES: Record<string, Surface> = {
  'POST /tools/:name': async (app, args) => {
    const res = await app.inject({
      method: 'POST',
      url: '/tools/probe_probe',
      headers: { 'content-type': 'application/json' },
      payload: args,
    })
    return { status: res.statusCode, refusal: res.body }
  },
  "Opal's envelope on /discovery/tools/:name": async (app, args) => {
    const res = await app.inject({
      method: 'POST',
      url: '/discovery/tools/probe_probe',
      headers: { 'content-type': 'application/json' },
      payload: `{"parameters":${args},"environment":{}}`,
    })
    return { status: res.statusCode, refusal: res.body }
  },
  'MCP tools/call': async (app, args) => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"probe_probe","arguments":${args}}}`,
    })
    const message = JSON.parse(res.body.startsWith('{') ? res.body : /^data: (.*)$/m.exec(res.body)![1]!)
    assert.equal(message.error, undefined, `JSON-RPC error: ${JSON.stringify(message.error)}`)
    assert.equal(message.result.isError, true, res.body.slice(0, 300))
    // An isError result stands for a 400: the status of the refusal is in its text.
    return { status: res.statusCode === 200 ? 400 : res.statusCode, refusal: message.result.content[0].text }
  },
}

async function appWithUpstream(t: { after(fn: () => Promise<unknown>): void }) {
  const upstream = await startUpstream(t)
  const config = await configFile(
    [
      'services:',
      '  probe:',
      `    upstream: ${upstream.url}`,
      '    credentials:',
      '      keyQuery: { value: gateway-secret }',
      '      keyCookie: { value: gateway-secret }',
      '      keyHeader: { value: gateway-secret }',
      // Few failures would open the circuit: hostile calls must not count as any.
      'upstream: { breaker: { failureThreshold: 2 } }',
    ].join('\n'),
  )
  const app = await testApp(
    t,
    { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config },
    memoryReader({ 'probe.yaml': spec }),
  )
  return { app, upstream }
}

describe('hostile arguments through every surface (issue 14 classes 1–3)', () => {
  for (const [name, surface] of Object.entries(SURFACES)) {
    test(`${name}: a 4xx naming the argument, nothing sent, the circuit closed, the gateway answering`, async (t) => {
      const { app, upstream } = await appWithUpstream(t)
      await fc.assert(
        fc.asyncProperty(hostile, async ({ args, argument }) => {
          const { status, refusal } = await surface(app, args)
          assert.equal(status, 400, refusal.slice(0, 300))
          assert.match(refusal, /TG_ERR_TOOL_ARGUMENTS_INVALID|Invalid arguments for tool probe_probe/)
          assert.ok(
            refusal.includes(`/${argument}`),
            `the refusal does not name ${argument}: ${refusal.slice(0, 300)}`,
          )
        }),
        { numRuns: 40 },
      )
      assert.equal(upstream.received.length, 0, 'a hostile call reached the upstream')
      assert.ok(Object.values(app.upstreamClient.breaker.states()).every((state) => state === 'closed'))
      // The same tool still answers a caller with ordinary arguments; a cookie-object key cannot add a cookie.
      const fine = await app.inject({
        method: 'POST',
        url: '/tools/probe_probe',
        payload: { id: 'x', 'X-Trace': 'abc', jar: { 'a; sid': 'evil' } },
      })
      assert.equal(fine.statusCode, 200, fine.body)
      assert.equal(upstream.received.length, 1)
      assert.equal(upstream.received[0]!.headers.cookie, 'a%3B%20sid=evil; sid=gateway-secret')
      assert.equal(upstream.received[0]!.headers['x-api-key'], 'gateway-secret')
      assert.equal((await app.inject('/health')).statusCode, 200)
    })
  }
})

describe('an MCP message nested deep outside its arguments', () => {
  test('is an Invalid Request naming the bound, for every depth past it; the gateway keeps answering', async (t) => {
    const { app, upstream } = await appWithUpstream(t)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 80, max: 20_000 }), async (depth) => {
        const meta = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
        const res = await app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          payload: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"x":${meta}}}}`,
        })
        assert.equal(res.statusCode, 400, res.body.slice(0, 200))
        assert.equal(res.json().error.code, -32600)
        assert.match(res.json().error.message, /nests deeper than 72 levels/)
      }),
      { numRuns: 20 },
    )
    assert.equal(upstream.received.length, 0)
    assert.equal((await app.inject('/health')).statusCode, 200)
  })
})

describe('credentials HTTP cannot carry are refused at boot, naming where', () => {
  test('a secret with a line break or control character in the configuration stops the start', async (t) => {
    for (const bad of ['"abc\\ndef"', '"abc\\u0001"', '"caf\\u00e9"']) {
      const config = await configFile(
        ['services:', '  probe:', '    credentials:', `      keyHeader: { value: ${bad} }`].join('\n'),
      )
      await assert.rejects(
        testApp(t, { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: config }, memoryReader({ 'probe.yaml': spec })),
        /services\.probe\.credentials\.keyHeader: the secret holds a line break, control or non-ASCII character/,
      )
    }
  })
})
