// Tool search on the big real-world fixtures (issue 15): index build time and query latency
// p50/p99 over the relevance tasks, on Kubernetes 1.13 + Stripe + Twilio in one catalog.
import { performance } from 'node:perf_hooks'
import {
  buildCatalog,
  buildSearchIndex,
  fsSourceReader,
  loadSpecsDirectory,
} from '../../src/catalog/index.js'
import { SEARCH_TASKS } from '../../test/fixtures/search-tasks.js'
import { fromRoot } from '../../test/helpers/paths.js'

const FILES = ['kubernetes-v1.13.json', 'stripe.json', 'twilio-api-v2010.json']

const loaded = await loadSpecsDirectory(fromRoot('test', 'fixtures', 'real-world'), {
  listFiles: async () => FILES,
  readText: fsSourceReader.readText,
})
const catalog = buildCatalog(loaded)
const builds: number[] = []
let index = buildSearchIndex(catalog)
for (let i = 0; i < 5; i++) {
  const start = performance.now()
  index = buildSearchIndex(catalog)
  builds.push(performance.now() - start)
}
for (const task of SEARCH_TASKS) index.search(task.query, { limit: 5 }) // warm-up
const latencies: number[] = []
for (let round = 0; round < 20; round++)
  for (const task of SEARCH_TASKS) {
    const start = performance.now()
    index.search(task.query, { limit: 5 })
    latencies.push(performance.now() - start)
  }
const long = 'list charges refunds pods '.repeat(400)
const longStart = performance.now()
index.search(long, { limit: 5 })
const longMs = performance.now() - longStart
latencies.sort((a, b) => a - b)
const at = (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2)
builds.sort((a, b) => a - b)
console.log(
  JSON.stringify(
    {
      tools: index.size,
      buildMs: { min: builds[0]!.toFixed(0), median: builds[2]!.toFixed(0) },
      queries: latencies.length,
      latencyMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
      tenKilobyteQueryMs: longMs.toFixed(2),
    },
    null,
    2,
  ),
)
