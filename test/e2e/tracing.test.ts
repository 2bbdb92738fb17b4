// Issue 46: the built server as a process, its OTEL_* environment pointing at a real OTLP/HTTP
// receiver started here, and a real upstream.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.js'
import { startServerProcess, stopServerProcess } from '../helpers/process.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

type After = { after(fn: () => Promise<unknown>): void }

async function tracedServer(t: After, receiver: OtlpReceiver | undefined, env: Record<string, string> = {}) {
  const upstream = await startUpstream(t)
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1], upstream.url))
  const server = await startServerProcess({
    SPECS_DIR: dir,
    EXAMPLE_UPSTREAM: 'off',
    DRAIN_DELAY: '0',
    SHUTDOWN_TIMEOUT: '3000',
    ...(receiver
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_TRACES_SAMPLER: 'always_on',
          OTEL_BSP_SCHEDULE_DELAY: '50',
          OTEL_SERVICE_NAME: 'toolgate-e2e',
        }
      : {}),
    ...env,
  })
  t.after(() => stopServerProcess(server))
  return { upstream, server }
}

const call = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/tools/svc:op1`, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json', ...headers },
  })

test('toolgate serve with an OTLP endpoint: one trace from the caller through the gateway to the upstream', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const receiver = await startOtlpReceiver()
  t.after(() => receiver.close())
  const { upstream, server } = await tracedServer(t, receiver)
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736'
  const res = await call(server.url, {
    traceparent: `00-${trace}-00f067aa0ba902b7-01`,
    tracestate: 'vendor=x',
  })
  assert.equal(res.status, 200, await res.text())
  // The server, tool and upstream spans; nothing else of this call makes a span (no hook or handler spans).
  const names = ['POST /tools/:name', 'execute_tool svc_op1', 'GET /op1']
  const inTrace = (all: readonly ReceivedSpan[]) => all.filter((span) => span.traceId === trace)
  const spans = inTrace(
    await receiver.waitFor((all) => names.every((name) => inTrace(all).some((span) => span.name === name))),
  )
  assert.equal(spans.length, 3, spans.map((span) => span.name).join(', '))
  const server_ = spans.find((span) => span.name === 'POST /tools/:name')
  const tool = spans.find((span) => span.name === 'execute_tool svc_op1')
  const client = spans.find((span) => span.name === 'GET /op1')
  assert.ok(server_ && tool && client, spans.map((span) => span.name).join(', '))
  assert.equal(server_.parentSpanId, '00f067aa0ba902b7')
  assert.equal(server_.service, 'toolgate-e2e')
  assert.equal(client.parentSpanId, tool.spanId)
  const received = upstream.received[0]!.headers
  assert.equal(received.traceparent, `00-${trace}-${client.spanId}-01`)
  assert.equal(received.tracestate, 'vendor=x', 'tracestate travels with the trace')
  assert.equal(received.baggage, undefined, 'baggage is not propagated unless OTEL_PROPAGATORS says so')
  const lines = server
    .logs()
    .split('\n')
    .filter((line) => line.includes('"tool call"') || line.includes('"request completed"'))
    .map((line) => JSON.parse(line))
    .filter((line) => line.res?.statusCode === 200 || line.tool)
  assert.ok(lines.some((line) => line.msg === 'tool call'))
  for (const line of lines.filter((entry) => entry.trace_id === trace || entry.tool))
    assert.equal(line.trace_id, trace, JSON.stringify(line))
})

test('a collector that never answers: calls answer, SIGTERM still exits 0 within its bound', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const receiver = await startOtlpReceiver()
  receiver.mode = 'hang'
  t.after(() => receiver.close())
  const { server } = await tracedServer(t, receiver)
  for (let i = 0; i < 20; i++) assert.equal((await call(server.url)).status, 200)
  // Spans are queued and on their way to a collector that holds every export open.
  while (receiver.bodies.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
  server.child.kill('SIGTERM')
  const [code] = (await once(server.child, 'exit')) as [number | null]
  // 0: the shutdown, its bounded flush included, ended within DRAIN_DELAY + SHUTDOWN_TIMEOUT.
  assert.equal(code, 0, server.logs().slice(-2_000))
})

test('a collector that is down: the server starts, calls answer, the lost spans are logged', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const receiver = await startOtlpReceiver()
  const url = receiver.url
  await receiver.close() // nothing listens there now
  const { server } = await tracedServer(t, undefined, {
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    // The exporter retries a refused connection until its timeout (10 s by default): 1 s here.
    OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
  })
  for (let i = 0; i < 5; i++) assert.equal((await call(server.url)).status, 200)
  while (!server.logs().includes('trace export failed'))
    await new Promise((resolve) => setTimeout(resolve, 50))
  const line = JSON.parse(
    server
      .logs()
      .split('\n')
      .find((entry) => entry.includes('trace export failed'))!,
  )
  assert.ok(line.spans > 0)
  assert.match(line.error, /ECONNREFUSED/)
  assert.doesNotMatch(server.logs(), /\n\s+at /, 'no stack trace in the log')
  assert.equal(await stopServerProcess(server), 0)
})

test('without an endpoint, or with OTEL_SDK_DISABLED=true, tracing is off: no traceparent goes upstream', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const envs: Record<string, string>[] = [
    {},
    { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' },
  ]
  for (const env of envs) {
    const { upstream, server } = await tracedServer(t, undefined, env)
    const res = await call(server.url, {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    })
    assert.equal(res.status, 200)
    assert.equal(upstream.received[0]!.headers.traceparent, undefined)
    assert.doesNotMatch(server.logs(), /tracing on/)
    assert.equal(await stopServerProcess(server), 0)
  }
})

test('an unknown OTLP protocol stops the start with a message naming the variable', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const receiver = await startOtlpReceiver()
  t.after(() => receiver.close())
  await assert.rejects(
    tracedServer(t, receiver, { OTEL_EXPORTER_OTLP_PROTOCOL: 'udp' }),
    /server exited with 1:[\s\S]*OTEL_EXPORTER_OTLP_PROTOCOL is "udp": use http\/protobuf, http\/json or grpc/,
  )
})
