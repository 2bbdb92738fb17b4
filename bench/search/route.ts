// GET /tools/search end to end (inject: routing, access, search, rendering the definitions) on
// Kubernetes 1.13 + Stripe + Twilio: p50/p99 per format over the relevance tasks.
import { readFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { buildApp } from '../../src/app.js'
import { fsSourceReader } from '../../src/catalog/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { SEARCH_TASKS } from '../../test/fixtures/search-tasks.js'
import { fromRoot } from '../../test/helpers/paths.js'

const FILES = ['kubernetes-v1.13.json', 'stripe.json', 'twilio-api-v2010.json']
const config = await loadConfig(
  { SPECS_DIR: fromRoot('test', 'fixtures', 'real-world'), LOG_LEVEL: 'silent' },
  (path) => readFile(path, 'utf8'),
)
const app = await buildApp({
  config,
  reader: { listFiles: async () => FILES, readText: fsSourceReader.readText },
})
const results: Record<string, { p50: string; p99: string; bytesP50: number }> = {}
for (const format of ['openai', 'claude', 'mcp', 'opal', 'openai-strict']) {
  const times: number[] = []
  const sizes: number[] = []
  for (let round = 0; round < 6; round++)
    for (const task of SEARCH_TASKS) {
      const started = performance.now()
      const res = await app.inject(`/tools/search?q=${encodeURIComponent(task.query)}&format=${format}`)
      if (round > 0) times.push(performance.now() - started)
      sizes.push(res.body.length)
    }
  times.sort((a, b) => a - b)
  sizes.sort((a, b) => a - b)
  const at = (q: number) => times[Math.floor(q * (times.length - 1))]!.toFixed(2)
  results[format] = { p50: at(0.5), p99: at(0.99), bytesP50: sizes[Math.floor(sizes.length / 2)]! }
}
console.log(JSON.stringify({ tools: app.catalogStore.current().search.size, limit: 5, results }, null, 2))
await app.close()
