// Issue 46: deploy/tracing.compose.yaml adds a collector to the compose demo. Checked offline: the
// gateway's OTEL_* environment turns tracing on and points at the collector's OTLP/HTTP receiver,
// whose pipeline takes traces to the debug exporter.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { parse } from 'yaml'
import { isTracingEnabled } from '../../src/tracing/tracing-enabled.js'
import { fromRoot } from '../helpers/paths.js'

interface Compose {
  services: Record<string, { image?: string; environment?: Record<string, string>; volumes?: string[] }>
}
interface Collector {
  receivers: { otlp: { protocols: { http: { endpoint: string } } } }
  exporters: Record<string, unknown>
  service: { pipelines: { traces: { receivers: string[]; exporters: string[] } } }
}

test('the tracing overlay points the gateway at the collector’s OTLP/HTTP receiver, printed by its debug exporter', async () => {
  const compose = parse(await readFile(fromRoot('deploy', 'tracing.compose.yaml'), 'utf8')) as Compose
  const collector = parse(await readFile(fromRoot('deploy', 'otel-collector.yaml'), 'utf8')) as Collector
  const env = compose.services.gateway?.environment ?? {}
  assert.ok(isTracingEnabled(env), 'the gateway traces')
  const endpoint = new URL(env.OTEL_EXPORTER_OTLP_ENDPOINT!)
  assert.equal(endpoint.hostname, 'collector')
  assert.ok(compose.services.collector?.image?.startsWith('otel/opentelemetry-collector:'))
  assert.ok(
    compose.services.collector?.volumes?.some((volume) =>
      volume.startsWith('./deploy/otel-collector.yaml:/etc/otelcol/config.yaml'),
    ),
  )
  const http = collector.receivers.otlp.protocols.http.endpoint
  assert.equal(http.split(':').at(-1), endpoint.port, 'the gateway sends to the port the receiver listens on')
  assert.deepEqual(collector.service.pipelines.traces.receivers, ['otlp'])
  assert.deepEqual(collector.service.pipelines.traces.exporters, ['debug'])
  assert.ok('debug' in collector.exporters)
})
