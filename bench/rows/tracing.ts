// Row 10 (issue 46): row 3a's tool call with tracing on — every call sampled (always_on), its
// spans exported over OTLP/HTTP (protobuf, the default) to a local collector — against the same
// gateway build with tracing off, same run, ABBA.
import { get } from '../lib/capture.js'
import { comparePair } from '../lib/compare.js'
import { GATEWAY_ENV, type RowContext } from '../lib/context.js'
import { itemsSetup } from '../lib/items-spec.js'
import { benchScript } from '../lib/paths.js'
import { type Started, startGateway, startItemsUpstream, startScriptServer, stop } from '../lib/processes.js'
import { type RowResult, ratioRow } from '../lib/report.js'
import { sameAnswers, toolCall } from './proxy.js'

export async function tracingRows(ctx: RowContext): Promise<RowResult[]> {
  const started: Started[] = []
  try {
    const upstream = await startItemsUpstream(ctx.cpus.upstream)
    started.push(upstream)
    const collector = await startScriptServer(
      'collector',
      benchScript('servers', 'otlp-sink.js'),
      [],
      ctx.cpus.upstream,
    )
    started.push(collector)
    const { specs, configFile } = await itemsSetup(
      ctx.tmp,
      'tracing',
      `services:\n  items:\n    upstream: ${upstream.url}\n`,
    )
    ctx.log('row 10: starting the gateway with tracing on and with tracing off')
    const env = { ...GATEWAY_ENV, SPECS_DIR: specs, TOOLGATE_CONFIG: configFile }
    const traced = await startGateway(
      'gateway-traced',
      { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_TRACES_SAMPLER: 'always_on' },
      ctx.cpus.server,
    )
    started.push(traced)
    const plain = await startGateway('gateway', env, ctx.cpus.server)
    started.push(plain)
    const call = await toolCall(plain.url)
    const problems = await sameAnswers(call, [traced.url, plain.url], upstream.url)
    const figure = { requests: [call], connections: 50, pipelining: 1, expectedStatus: 200 }
    const label = `POST ${call.path} -c50 -p1 traced (always_on, OTLP to a local collector) vs tracing off`
    ctx.log(`row 10: ${label}`)
    const pair = await comparePair(
      { label: 'tracing on', origin: traced.url },
      { label: 'tracing off', origin: plain.url },
      figure,
      ctx.options,
      ctx.cpus.client,
    )
    const received = JSON.parse((await get(`${collector.url}/received`)).body.toString()) as {
      exports: number
      bytes: number
    }
    if (received.exports === 0) problems.push('the traced gateway exported nothing to the collector')
    return [
      ratioRow(pair, {
        id: '10',
        row: 'tracing',
        figure: label,
        metric: 'req/s ratio vs tracing off',
        target: { op: '>=', value: 0.85 },
        problems,
        details: { ...figure, ...pair, collector: received },
      }),
    ]
  } finally {
    for (const server of started.reverse()) await stop(server)
  }
}
