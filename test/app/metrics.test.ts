import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { SourceReader } from '../../src/catalog/index.js'
import { testApp } from '../helpers/app.js'
import { MEMORY_DIR } from '../helpers/memory-catalog.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus.js'
import { serviceSpec } from '../helpers/specs-dir.js'
import { closedPort, startUpstream } from '../helpers/upstreams.js'

/** A reader over files the test can change between reloads. */
function mutableReader(files: Record<string, string>): SourceReader {
  return {
    listFiles: async () => Object.keys(files).sort(),
    readText: async (path) => {
      const text = files[path.slice(MEMORY_DIR.length + 1)]
      if (text === undefined) throw new Error(`ENOENT: ${path}`)
      return text
    },
  }
}

test('/metrics parses as Prometheus text and shows request, upstream, reload and session series', async (t) => {
  const upstream = await startUpstream(t, (received, res) => {
    res.writeHead(received.target === '/op1' ? 200 : 503, { 'content-type': 'application/json' })
    res.end('{}')
  })
  const files: Record<string, string> = {
    'svc.yaml': serviceSpec([1, 2], upstream.url),
    'gone.yaml': serviceSpec([1], `http://127.0.0.1:${await closedPort()}`),
  }
  const app = await testApp(t, { SPECS_DIR: MEMORY_DIR }, mutableReader(files))

  assert.equal((await app.inject({ method: 'POST', url: '/tools/svc:op1', payload: {} })).statusCode, 200)
  assert.equal((await app.inject({ method: 'POST', url: '/tools/svc:op2', payload: {} })).statusCode, 503)
  assert.equal((await app.inject({ method: 'POST', url: '/tools/gone:op1', payload: {} })).statusCode, 502)
  assert.equal((await app.inject({ method: 'POST', url: '/api/sessions', payload: {} })).statusCode, 201)
  files['svc.yaml'] = 'openapi: 3.1.0\npaths: ['
  assert.equal((await app.catalogStore.reload('manual')).outcome, 'failed')
  delete files['gone.yaml']
  assert.equal((await app.catalogStore.reload('signal')).swapped, true)

  const res = await app.inject('/metrics')
  assert.equal(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  const metrics = parsePrometheusText(res.body)

  // Requests by route pattern (never the raw URL) and status, with a latency histogram.
  assert.equal(metrics.types.get('http_request_duration_seconds'), 'histogram')
  const requests = (labels: Record<string, string>) =>
    sampleValue(metrics, 'http_request_duration_seconds_count', { method: 'POST', ...labels })
  assert.equal(requests({ route: '/tools/:name', status_code: '200' }), 1)
  assert.equal(requests({ route: '/tools/:name', status_code: '502' }), 1)
  assert.equal(requests({ route: '/api/sessions', status_code: '201' }), 1)
  assert.ok(
    metrics.samples.every((sample) => !sample.labels.route?.includes('svc:')),
    'no raw URL is a label',
  )

  // Upstream calls and errors by service.
  const upstreamCalls = (service: string, result: string) =>
    sampleValue(metrics, 'toolgate_upstream_requests_total', { service, result })
  assert.equal(upstreamCalls('svc', '200'), 1)
  assert.equal(upstreamCalls('svc', '503'), 1)
  assert.equal(upstreamCalls('gone', 'unreachable'), 1)
  assert.equal(sampleValue(metrics, 'toolgate_upstream_errors_total', { service: 'svc', kind: '5xx' }), 1)
  assert.equal(
    sampleValue(metrics, 'toolgate_upstream_errors_total', { service: 'gone', kind: 'unreachable' }),
    1,
  )
  assert.equal(sampleValue(metrics, 'toolgate_upstream_duration_seconds_count', { service: 'svc' }), 2)

  // Catalog reloads and failures, and what serves now.
  assert.equal(sampleValue(metrics, 'toolgate_catalog_reloads_total', { trigger: 'manual' }), 1)
  assert.equal(sampleValue(metrics, 'toolgate_catalog_reloads_total', { trigger: 'signal' }), 1)
  assert.equal(sampleValue(metrics, 'toolgate_catalog_reload_failures_total', { trigger: 'manual' }), 1)
  assert.equal(sampleValue(metrics, 'toolgate_catalog_reload_duration_seconds_count'), 2)
  assert.equal(sampleValue(metrics, 'toolgate_catalog_stale_sources'), 1)
  assert.equal(sampleValue(metrics, 'toolgate_catalog_tools'), 2)
  const version = app.catalogStore.current().catalog.version
  assert.equal(sampleValue(metrics, 'toolgate_catalog_info', { version }), 1)

  assert.equal(sampleValue(metrics, 'toolgate_sessions_created_total', { store: 'memory' }), 1)
  assert.ok(sampleValue(metrics, 'process_resident_memory_bytes') > 0)
})

test('the metrics parser used above refuses malformed exposition text', () => {
  assert.throws(() => parsePrometheusText('# TYPE a counter\na{x="1" 2\n'), /not a sample|bad labels/)
  assert.throws(() => parsePrometheusText('b 1\n'), /before its # TYPE/)
  assert.throws(() => parsePrometheusText('# TYPE a gauge\na one\n'), /bad value/)
  assert.deepEqual(parsePrometheusText('# TYPE a_total counter\na_total{x="q\\"uote"} 3\n').samples, [
    { name: 'a_total', labels: { x: 'q"uote' }, value: 3 },
  ])
})

test('the request histogram: cumulative buckets up to +Inf = count, one series per route, method and status; HEAD, preflights, 404s and /metrics untimed', async (t) => {
  const app = await testApp(t)
  for (let i = 0; i < 3; i++) assert.equal((await app.inject('/health')).statusCode, 200)
  assert.equal((await app.inject('/discovery?profile=nope')).statusCode, 400)
  assert.equal((await app.inject({ method: 'HEAD', url: '/health' })).statusCode, 200)
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/health',
    headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
  })
  assert.equal(preflight.statusCode, 204)
  assert.equal((await app.inject('/no/such/route')).statusCode, 404)
  await app.inject('/metrics')

  const metrics = parsePrometheusText((await app.inject('/metrics')).body)
  const series = metrics.samples.filter((sample) => sample.name === 'http_request_duration_seconds_count')
  assert.deepEqual(
    series.map((sample) => [
      sample.labels.method,
      sample.labels.route,
      sample.labels.status_code,
      sample.value,
    ]),
    [
      ['GET', '/health', '200', 3],
      ['GET', '/discovery', '400', 1],
    ],
  )
  const buckets = metrics.samples.filter(
    (sample) => sample.name === 'http_request_duration_seconds_bucket' && sample.labels.route === '/health',
  )
  assert.equal(buckets.at(-1)?.labels.le, '+Inf')
  assert.equal(buckets.at(-1)?.value, 3)
  for (const [i, bucket] of buckets.entries())
    assert.ok(i === 0 || bucket.value >= buckets[i - 1]!.value, `bucket le=${bucket.labels.le} is cumulative`)
  assert.ok(sampleValue(metrics, 'http_request_duration_seconds_sum', { route: '/health' }) > 0)
})
