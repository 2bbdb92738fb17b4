import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { Counter, Histogram, type Metric, Registry } from 'prom-client'
import { KeyedHistogram, SeriesCounter } from '../../plugins/metric-series.js'

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
const REQUESTS = ['toolgate_upstream_requests_total', 'Upstream calls by service and result'] as const
const DURATION = ['toolgate_upstream_duration_seconds', 'Upstream call duration, by service'] as const
const CALLS = ['toolgate_tool_calls_total', 'Tool calls "admitted"\\ by client\nand surface'] as const

type Op =
  | { kind: 'request'; service: string; result: number | string }
  | { kind: 'duration'; service: string; seconds: number }
  | { kind: 'call'; client: string; via: string }
  | { kind: 'reset' }

/** prom-client's registry fed through its own metrics, as metrics.ts did before, and through ours. */
function registries() {
  const reference = new Registry()
  const requests = new Counter({
    name: REQUESTS[0],
    help: REQUESTS[1],
    labelNames: ['service', 'result'],
    registers: [reference],
  })
  const duration = new Histogram({
    name: DURATION[0],
    help: DURATION[1],
    labelNames: ['service'],
    buckets: BUCKETS,
    registers: [reference],
  })
  const calls = new Counter({
    name: CALLS[0],
    help: CALLS[1],
    labelNames: ['client', 'via'],
    registers: [reference],
  })

  const ours = new Registry()
  const ourRequests = new SeriesCounter(REQUESTS[0], REQUESTS[1], ['service', 'result'])
  const ourDuration = new KeyedHistogram(DURATION[0], DURATION[1], BUCKETS, 'service')
  const ourCalls = new SeriesCounter(CALLS[0], CALLS[1], ['client', 'via'])
  for (const metric of [ourRequests, ourDuration, ourCalls]) ours.registerMetric(metric as unknown as Metric)

  const apply = (op: Op) => {
    switch (op.kind) {
      case 'request':
        requests.inc({ service: op.service, result: String(op.result) })
        ourRequests.inc2(op.service, op.result)
        return
      case 'duration':
        duration.observe({ service: op.service }, op.seconds)
        ourDuration.observe(op.service, op.seconds)
        return
      case 'call':
        calls.inc({ client: op.client, via: op.via })
        ourCalls.inc2(op.client, op.via)
        return
      case 'reset':
        reference.resetMetrics()
        ours.resetMetrics()
    }
  }
  return { reference, ours, apply }
}

// No ',' in label values: prom-client's hash of a label set is `name:value,` joined, so values
// with commas and colons can merge two label sets there (ours keeps them apart).
const labelValue = fc.oneof(
  fc.constantFrom('items', 'svc', 'anonymous', 'rest', 'mcp', 'a"b', 'back\\slash', 'new\nline', ''),
  fc.string({ unit: 'grapheme', maxLength: 8 }).filter((value) => !value.includes(',')),
)
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('request' as const),
    service: labelValue,
    result: fc.oneof(
      fc.integer({ min: 100, max: 599 }),
      fc.constantFrom('timeout', 'unreachable', 'circuit-open', 'too-large', 'invalid', 'aborted'),
    ),
  }),
  fc.record({
    kind: fc.constant('duration' as const),
    service: labelValue,
    seconds: fc.oneof(fc.constantFrom(0, ...BUCKETS), fc.double({ min: 0, max: 120, noNaN: true })),
  }),
  fc.record({ kind: fc.constant('call' as const), client: labelValue, via: labelValue }),
  fc.constant({ kind: 'reset' as const }),
)

test('the tool-call series expose the text prom-client exposed for the same updates, resets included', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
      const { reference, ours, apply } = registries()
      for (const each of ops) apply(each)
      assert.equal(await ours.metrics(), await reference.metrics())
    }),
    { numRuns: 500 },
  )
})

test('no series before the first update: only the HELP and TYPE lines, as prom-client shows a labelled metric', async () => {
  const { reference, ours } = registries()
  assert.equal(await ours.metrics(), await reference.metrics())
  assert.doesNotMatch(await ours.metrics(), /^toolgate_/m)
})

test('a status and its text are one series: 200 counted as a number, shown as result="200"', async () => {
  const counter = new SeriesCounter('c_total', 'c', ['service', 'result'])
  counter.inc2('items', 200)
  counter.inc2('items', 200)
  counter.inc2('items', 'timeout')
  counter.inc2('other', 200)
  assert.deepEqual((await counter.get()).values, [
    { value: 2, labels: { service: 'items', result: '200' } },
    { value: 1, labels: { service: 'items', result: 'timeout' } },
    { value: 1, labels: { service: 'other', result: '200' } },
  ])
})

test('a histogram value on a bound is counted in that bound, above the last only in +Inf', async () => {
  const histogram = new KeyedHistogram('h_seconds', 'h', [1, 2], 'service')
  for (const seconds of [1, 1.5, 2, 3]) histogram.observe('s', seconds)
  const values = (await histogram.get()).values.map(({ labels, value, metricName }) => [
    metricName,
    labels.le ?? '',
    value,
  ])
  assert.deepEqual(values, [
    ['h_seconds_bucket', 1, 1],
    ['h_seconds_bucket', 2, 3],
    ['h_seconds_bucket', '+Inf', 4],
    ['h_seconds_sum', '', 7.5],
    ['h_seconds_count', '', 4],
  ])
})
