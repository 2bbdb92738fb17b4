// Issue 46: OpenTelemetry traces, exported to a real OTLP/HTTP receiver (OTLP/JSON) started here.
// One SDK per process (OpenTelemetry's providers are global): started once for this file.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { after, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { startTracing } from '../../src/tracing/start-tracing.js'
import { isTracingEnabled } from '../../src/tracing/tracing-enabled.js'
import { configFile } from '../helpers/app.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { oauthSpec, startOidcServer, startProtectedApi } from '../helpers/oidc-provider.js'
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js'
import { fromRoot } from '../helpers/paths.js'
import { tempDir } from '../helpers/specs-dir.js'
import { startUpstream, type TestUpstream } from '../helpers/upstreams.js'

const receiver = await startOtlpReceiver()
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url
process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json'
process.env.OTEL_BSP_SCHEDULE_DELAY = '20' // ms: the batches leave at once, the test waits less
process.env.OTEL_TRACES_SAMPLER = 'always_on'
// A hung or refusing collector holds an export this long (10 s by default), and the next behind it.
process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '2000'
const tracing = await startTracing(process.env)
after(async () => {
  await tracing.shutdown(2_000)
  await receiver.close()
})

const SERVER = 2
const CLIENT = 3
const MODERN = '2026-07-28'
const MCP_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'toolgate-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
}

type After = { after(fn: () => Promise<unknown>): void }

/** The shipped specs against `upstream`, traced, logging at info into `lines`. */
async function tracedApp(
  t: After,
  upstream: TestUpstream,
  lines: string[],
  secret = 'plain-secret-0123456789',
) {
  const file = await configFile(
    [
      'services:',
      '  tickets:',
      `    upstream: ${upstream.url}/tickets`,
      '    credentials:',
      `      apiKeyAuth: { value: "${secret}" }`,
      `      bearerAuth: { value: "${secret}" }`,
      '  billing:',
      `    upstream: ${upstream.url}/billing`,
      '    credentials:',
      `      basicAuth: { username: u, password: { value: "${secret}" } }`,
      `      apiKeyQuery: { value: "${secret}" }`,
    ].join('\n'),
  )
  const config = await loadConfig(
    { SPECS_DIR: fromRoot('specs'), TOOLGATE_CONFIG: file, LOG_LEVEL: 'info' },
    (path) => readFile(path, 'utf8'),
  )
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const app = await buildApp({ config, tracing, logger: { level: 'info', stream } })
  t.after(() => app.close())
  return app
}

const traceId = () => randomBytes(16).toString('hex')
const parentId = () => randomBytes(8).toString('hex')

/** The spans of one trace once its server, tool and upstream spans have all been exported. */
function spansOf(receiver: OtlpReceiver, trace: string, upstreamSpans = 1): Promise<ReceivedSpan[]> {
  return receiver
    .waitFor((spans) => {
      const mine = spans.filter((span) => span.traceId === trace)
      return (
        mine.some((span) => span.kind === SERVER) &&
        mine.some((span) => span.name.startsWith('execute_tool')) &&
        mine.filter((span) => span.kind === CLIENT).length >= upstreamSpans
      )
    })
    .then((spans) => spans.filter((span) => span.traceId === trace))
}

function callTool(app: FastifyInstance, name: string, args: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: `/tools/${name}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(args),
  })
}

test('a call with a traceparent: server, tool and upstream spans in that trace, the upstream gets its traceparent, the log lines carry its ID', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const upstream = await startUpstream(t)
  const lines: string[] = []
  const app = await tracedApp(t, upstream, lines)
  const trace = traceId()
  const caller = parentId()
  const res = await callTool(
    app,
    'billing_get_balance',
    { customerId: 'C-42' },
    {
      traceparent: `00-${trace}-${caller}-01`,
    },
  )
  assert.equal(res.statusCode, 200, res.body)
  const spans = await spansOf(receiver, trace)
  const server = spans.find((span) => span.kind === SERVER)!
  const tool = spans.find((span) => span.name === 'execute_tool billing_get_balance')!
  const client = spans.find((span) => span.kind === CLIENT)!
  assert.equal(server.parentSpanId, caller, 'the server span continues the caller’s span')
  assert.equal(server.name, 'POST /tools/:name')
  assert.equal(server.attributes['http.route'], '/tools/:name')
  assert.equal(server.attributes['http.response.status_code'], 200)
  assert.equal(server.service, 'toolgate')
  // The tool span sits under the server span (through @fastify/otel's handler span).
  const byId = new Map(spans.map((span) => [span.spanId, span]))
  let up = byId.get(tool.parentSpanId)
  while (up && up !== server) up = byId.get(up.parentSpanId)
  assert.equal(up, server, 'the tool span descends from the server span')
  assert.deepEqual(
    {
      tool: tool.attributes['gen_ai.tool.name'],
      op: tool.attributes['gen_ai.operation.name'],
      id: tool.attributes['toolgate.tool.id'],
      service: tool.attributes['toolgate.service.id'],
      client: tool.attributes['toolgate.client.id'],
      dryRun: tool.attributes['toolgate.tool.dry_run'],
      outcome: tool.attributes['toolgate.tool.outcome'],
      status: tool.attributes['http.response.status_code'],
    },
    {
      tool: 'billing_get_balance',
      op: 'execute_tool',
      id: 'billing:getBalance',
      service: 'billing',
      client: 'anonymous',
      dryRun: false,
      outcome: 'answer',
      status: 200,
    },
  )
  assert.equal(client.parentSpanId, tool.spanId)
  assert.equal(client.name, 'GET /customers/{customerId}/balance')
  assert.equal(client.attributes['url.template'], '/customers/{customerId}/balance')
  assert.equal(client.attributes['http.request.method'], 'GET')
  assert.equal(client.attributes['http.response.status_code'], 200)
  assert.equal(client.attributes['toolgate.upstream.breaker.state'], 'closed')
  // The upstream got a traceparent of the same trace, naming the upstream span as its parent.
  const sent = upstream.received.at(-1)!.headers.traceparent
  assert.equal(sent, `00-${trace}-${client.spanId}-01`)
  const logged = lines
    .map((line) => JSON.parse(line))
    .filter((line) => line.reqId === res.headers['x-request-id'] || line.trace_id === trace)
  const afterStart = logged.filter((line) => line.msg !== 'incoming request')
  assert.ok(afterStart.length >= 2, 'the tool call and the completion are logged')
  for (const line of afterStart) {
    assert.equal(line.trace_id, trace, JSON.stringify(line))
    assert.equal(line.span_id, server.spanId)
  }
})

test('a fetched OAuth2 token is a CLIENT span under the tool span; the provider gets its traceparent, no secret or token is exported', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const clientSecret = `secret-${randomBytes(12).toString('hex')}`
  const oidc = await startOidcServer(t, [{ client_id: 'gateway', client_secret: clientSecret }])
  const api = await startProtectedApi(t, oidc)
  const specs = await tempDir(t)
  await writeFile(join(specs, 'api.json'), oauthSpec(api.url, oidc.tokenUrl))
  const file = await configFile(
    `services:\n  api:\n    credentials:\n      oauth: { clientId: gateway, clientSecret: { value: ${clientSecret} } }\n`,
  )
  const config = await loadConfig(
    { SPECS_DIR: specs, TOOLGATE_CONFIG: file, SPECS_POLL_INTERVAL: '0', LOG_LEVEL: 'silent' },
    (path) => readFile(path, 'utf8'),
  )
  const app = await buildApp({ config, tracing })
  t.after(() => app.close())
  const trace = traceId()
  const res = await callTool(app, 'api_list_tickets', {}, { traceparent: `00-${trace}-${parentId()}-01` })
  assert.equal(res.statusCode, 200, res.body)
  const spans = await spansOf(receiver, trace, 2)
  const tool = spans.find((span) => span.name.startsWith('execute_tool'))!
  const token = spans.find((span) => span.kind === CLIENT && span.attributes['url.path'] === '/token')
  assert.ok(token, spans.map((span) => span.name).join(', '))
  assert.equal(token.name, 'POST')
  assert.equal(token.parentSpanId, tool.spanId, 'the token request belongs to the tool call')
  assert.equal(token.attributes['toolgate.token.grant_type'], 'client_credentials')
  assert.equal(token.attributes['error.type'], undefined)
  assert.deepEqual(oidc.tokenTraceparents(), [`00-${trace}-${token.spanId}-01`])
  // Neither the client's secret nor the token it got appears in anything exported.
  const issued = api.calls[0]!.token!
  const exported = Buffer.concat(receiver.bodies).toString('latin1')
  for (const secret of [clientSecret, issued, Buffer.from(`gateway:${clientSecret}`).toString('base64')])
    assert.ok(!exported.includes(secret), 'a secret reached the collector')
})

test('the tool ID in the span is the catalog’s: a refused call records its code and counts the validation failures', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const upstream = await startUpstream(t)
  const app = await tracedApp(t, upstream, [])
  const trace = traceId()
  const res = await callTool(
    app,
    'billing_get_balance',
    { customerId: 7, extra: true },
    {
      traceparent: `00-${trace}-${parentId()}-01`,
    },
  )
  assert.equal(res.statusCode, 400)
  const spans = await receiver
    .waitFor((all) => all.some((span) => span.traceId === trace && span.name.startsWith('execute_tool')))
    .then((all) => all.filter((span) => span.traceId === trace))
  const tool = spans.find((span) => span.name.startsWith('execute_tool'))!
  assert.equal(tool.attributes['toolgate.tool.outcome'], 'refusal')
  assert.equal(tool.attributes['error.type'], 'TG_ERR_TOOL_ARGUMENTS_INVALID')
  assert.equal(
    tool.attributes['toolgate.tool.validation_failures'],
    (res.json() as { violations: unknown[] }).violations.length,
  )
  assert.equal(spans.filter((span) => span.kind === CLIENT).length, 0, 'nothing was sent upstream')
  assert.equal(upstream.received.length, 0)

  const dryTrace = traceId()
  const dry = await app.inject({
    method: 'POST',
    url: '/tools/billing_get_balance?dryRun=true',
    headers: { 'content-type': 'application/json', traceparent: `00-${dryTrace}-${parentId()}-01` },
    payload: JSON.stringify({ customerId: 'C-7' }),
  })
  assert.equal(dry.statusCode, 200, dry.body)
  const dryTool = (
    await receiver.waitFor((all) =>
      all.some((span) => span.traceId === dryTrace && span.name.startsWith('execute_tool')),
    )
  ).find((span) => span.traceId === dryTrace && span.name.startsWith('execute_tool'))!
  assert.equal(dryTool.attributes['toolgate.tool.dry_run'], true)
  assert.equal(dryTool.attributes['toolgate.tool.outcome'], 'dry-run')
  assert.equal(upstream.received.length, 0, 'a dry run sends nothing')
})

test('a malformed traceparent or tracestate is ignored: the call answers, a new trace starts and goes upstream', {
  timeout: HANG_BOUND_MS * 2,
}, async (t) => {
  const upstream = await startUpstream(t)
  const app = await tracedApp(t, upstream, [])
  const malformed = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.constantFrom(
      '00-00000000000000000000000000000000-b7ad6b7169203331-01', // all-zero trace ID
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', // all-zero parent ID
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', // version ff is invalid
      '00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01', // upper case
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331', // no flags
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
    ),
  )
  const tracestate = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 300 }))
  await fc.assert(
    fc.asyncProperty(malformed, tracestate, async (traceparent, state) => {
      const headers: Record<string, string> = { traceparent }
      if (state !== undefined) headers.tracestate = state
      // Values Node cannot send as a header are not the gateway's to judge.
      if (Object.values(headers).some((value) => /[^\t\x20-\x7e]/.test(value))) return
      const res = await callTool(app, 'billing_get_balance', { customerId: 'C-1' }, headers)
      assert.equal(res.statusCode, 200, res.body)
      const sent = String(upstream.received.at(-1)!.headers.traceparent)
      assert.match(sent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/)
      assert.ok(
        !sent.includes('0af7651916cd43dd8448eb211c80319c') ||
          traceparent.startsWith('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'),
      )
      assert.notEqual(sent.slice(3, 35), '0'.repeat(32))
    }),
    { numRuns: 60 },
  )
})

test('MCP: a traceparent in params._meta continues that trace; the server span carries the MCP attributes', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const upstream = await startUpstream(t)
  const app = await tracedApp(t, upstream, [])
  const httpTrace = traceId()
  const metaTrace = traceId()
  const metaParent = parentId()
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'billing_get_balance',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      traceparent: `00-${httpTrace}-${parentId()}-01`,
    },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'billing_get_balance',
        arguments: { customerId: 'C-9' },
        _meta: { ...MCP_META, traceparent: `00-${metaTrace}-${metaParent}-01` },
      },
    }),
  })
  assert.equal(res.statusCode, 200, res.body)
  const all = await receiver.waitFor(
    (spans) =>
      spans.some((span) => span.traceId === httpTrace && span.kind === SERVER) &&
      spans.some((span) => span.traceId === metaTrace && span.kind === CLIENT),
  )
  const server = all.find((span) => span.traceId === httpTrace && span.kind === SERVER)!
  assert.equal(server.name, 'tools/call billing_get_balance')
  assert.equal(server.attributes['mcp.method.name'], 'tools/call')
  assert.equal(server.attributes['mcp.protocol.version'], MODERN)
  assert.equal(server.attributes['jsonrpc.request.id'], '7')
  assert.equal(server.attributes['gen_ai.tool.name'], 'billing_get_balance')
  const tool = all.find((span) => span.traceId === metaTrace && span.name.startsWith('execute_tool'))!
  assert.equal(tool.parentSpanId, metaParent, '_meta’s context wins over the HTTP headers’')
  const sent = String(upstream.received.at(-1)!.headers.traceparent)
  assert.equal(sent.slice(3, 35), metaTrace)

  // A malformed one in _meta is ignored: the call continues the HTTP headers' trace.
  const headerTrace = traceId()
  const again = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': 'billing_get_balance',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      traceparent: `00-${headerTrace}-${parentId()}-01`,
    },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: {
        name: 'billing_get_balance',
        arguments: { customerId: 'C-9' },
        _meta: { ...MCP_META, traceparent: '00-not-a-trace-01', tracestate: '=,=' },
      },
    }),
  })
  assert.equal(again.statusCode, 200, again.body)
  assert.doesNotMatch(again.body, /"error"/)
  assert.equal(String(upstream.received.at(-1)!.headers.traceparent).slice(3, 35), headerTrace)
})

test('search and catalog reloads are traced: lengths and counts, never the query’s words', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const upstream = await startUpstream(t)
  const app = await tracedApp(t, upstream, [])
  const words = 'unpaid invoices of customer zebra-7731'
  const trace = traceId()
  const res = await app.inject({
    method: 'GET',
    url: `/tools/search?q=${encodeURIComponent(words)}&limit=3`,
    headers: { traceparent: `00-${trace}-${parentId()}-01` },
  })
  assert.equal(res.statusCode, 200, res.body)
  const results = (res.json() as { tools: { score: number }[] }).tools
  const spans = await receiver
    .waitFor((all) => all.some((span) => span.traceId === trace && span.name === 'tool_search'))
    .then((all) => all.filter((span) => span.traceId === trace))
  const search = spans.find((span) => span.name === 'tool_search')!
  assert.equal(search.attributes['toolgate.search.query.length'], words.length)
  assert.equal(search.attributes['toolgate.search.results'], results.length)
  assert.ok(results.length > 0)
  assert.equal(
    Math.round(Number(search.attributes['toolgate.search.top_score']) * 1000) / 1000,
    results[0]!.score,
  )
  const server = spans.find((span) => span.kind === SERVER)!
  assert.equal(server.attributes['url.path'], '/tools/search', 'the query string is not recorded')
  for (const body of receiver.bodies)
    assert.ok(!body.toString().includes('zebra'), 'the query text is exported nowhere')

  await app.catalogStore.reload('signal')
  const reload = (await receiver.waitFor((all) => all.some((span) => span.name === 'catalog reload'))).find(
    (span) => span.name === 'catalog reload',
  )!
  assert.equal(reload.attributes['toolgate.catalog.reload.trigger'], 'signal')
  assert.equal(reload.attributes['toolgate.catalog.version'], app.catalogStore.current().catalog.version)
  assert.equal(reload.attributes['toolgate.catalog.tools.added'], 0)
  assert.equal(reload.parentSpanId, '')
  assert.ok(receiver.spans().some((span) => span.name === 'catalog build'))
})

/** A generated secret and the forms it travels in: as is, percent-encoded, in Basic auth, JSON-escaped. */
function forms(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    Buffer.from(`u:${secret}`).toString('base64'),
    JSON.stringify(secret).slice(1, -1),
  ]
}

test('no generated credential or argument value appears in any exported byte', {
  timeout: HANG_BOUND_MS * 4,
}, async (t) => {
  const upstream = await startUpstream(t)
  // A credential of the characters a YAML double-quoted scalar takes as they are; an argument of anything.
  const credential = fc.stringMatching(/^[A-Za-z0-9_.~+/=-]{12,40}$/).map((text) => `Sk-${text}`)
  const argument = fc.string({ minLength: 6, maxLength: 40 }).map((text) => `A\`${text}`)
  let reachedUpstream = 0
  await fc.assert(
    fc.asyncProperty(credential, argument, fc.boolean(), async (secret, value, mcp) => {
      const app = await tracedApp(t, upstream, [], secret)
      const before = upstream.received.length
      const trace = traceId()
      const traceparent = `00-${trace}-${parentId()}-01`
      const res = mcp
        ? await app.inject({
            method: 'POST',
            url: '/mcp',
            headers: {
              'mcp-protocol-version': MODERN,
              'mcp-method': 'tools/call',
              'mcp-name': 'tickets_get_ticket',
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              traceparent,
            },
            payload: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { name: 'tickets_get_ticket', arguments: { ticketId: value }, _meta: MCP_META },
            }),
          })
        : await callTool(app, 'billing_get_balance', { customerId: value }, { traceparent })
      assert.ok(res.statusCode < 500, res.body)
      await receiver.waitFor((spans) => spans.some((span) => span.traceId === trace && span.kind === SERVER))
      await app.close()
      const exported = Buffer.concat(receiver.bodies).toString('utf8')
      for (const form of [...forms(secret), ...forms(value)])
        assert.ok(!exported.includes(form), `exported: ${JSON.stringify(form)}`)
      // What the upstream received shows the secret did travel: the check above is not vacuous.
      const sent = upstream.received.at(-1)
      if (upstream.received.length === before) return // refused before sending (the value broke the schema)
      reachedUpstream++
      const travelled = `${JSON.stringify(sent?.headers)} ${sent?.target}`
      assert.ok(
        forms(secret).some((form) => travelled.includes(form)),
        'the upstream got the credential',
      )
    }),
    { numRuns: 12 },
  )
  assert.ok(reachedUpstream > 0, 'some generated calls reached the upstream')
})

test('a collector that refuses or never answers: calls are unaffected, lost spans are counted', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const upstream = await startUpstream(t)
  const app = await tracedApp(t, upstream, [])
  const before = tracing.droppedSpans()
  receiver.mode = 'refuse'
  t.after(() => {
    receiver.mode = 'accept'
  })
  const refused = receiver.bodies.length
  for (let i = 0; i < 5; i++) {
    const res = await callTool(app, 'billing_get_balance', { customerId: `C-${i}` })
    assert.equal(res.statusCode, 200)
  }
  // The exporter tried, was refused, and said how many spans it lost.
  while (tracing.droppedSpans() === before) await new Promise((resolve) => setTimeout(resolve, 20))
  assert.ok(receiver.bodies.length > refused)
  assert.ok(tracing.droppedSpans() > before)
  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  const counted = /^toolgate_trace_spans_dropped_total (\d+)$/m.exec(metrics.body)
  assert.ok(counted, 'the lost spans are a Prometheus counter')
  assert.equal(Number(counted[1]), tracing.droppedSpans())
  receiver.mode = 'hang'
  for (let i = 0; i < 5; i++) {
    const res = await callTool(app, 'billing_get_balance', { customerId: `H-${i}` })
    assert.equal(res.statusCode, 200)
  }
})

test('tracing is on only with an OTLP endpoint and without OTEL_SDK_DISABLED', () => {
  const cases: [Record<string, string>, boolean][] = [
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
  ]
  for (const [env, on] of cases) assert.equal(isTracingEnabled(env), on, JSON.stringify(env))
})

test('an OTLP protocol that does not exist stops the start with a message naming the variable', async () => {
  await assert.rejects(
    startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'udp' }),
    /OTEL_EXPORTER_OTLP_PROTOCOL is "udp": use http\/protobuf, http\/json or grpc/,
  )
  await assert.rejects(
    startTracing({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http' }),
    /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL is "http": use/,
  )
})

test('a malformed body’s values stay out of the spans: the error status names the HTTP status, not the parser’s excerpt', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const upstream = await startUpstream(t)
  const app = await tracedApp(t, upstream, [])
  const trace = traceId()
  const res = await app.inject({
    method: 'POST',
    url: '/tools/billing_get_balance',
    headers: { 'content-type': 'application/json', traceparent: `00-${trace}-${parentId()}-01` },
    payload: '{"customerId": "value-zq81x-in-a-broken-body", ',
  })
  assert.equal(res.statusCode, 400)
  assert.match(res.body, /not valid JSON/)
  await receiver.waitFor((spans) => spans.some((span) => span.traceId === trace && span.kind === SERVER))
  const exported = Buffer.concat(receiver.bodies).toString('utf8')
  assert.ok(exported.includes(trace), 'the span of the refused request was exported')
  assert.ok(!exported.includes('zq81x'), 'no excerpt of the body in any span')
  assert.ok(exported.includes('HTTP 400'))
})
