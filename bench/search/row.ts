// Row 7's child process (issue 15): on Kubernetes 1.13 + Stripe + Twilio in one catalog, the
// latency of GET /tools/search over the relevance tasks (in-process inject: routing, access, the
// index, rendering the definitions), and the tokens an agent's first turn carries in each form:
// the whole /openai.json and /claude.json, their deferred forms, and MCP search mode's tools/list.
// Prints one JSON object.
import { readFile } from 'node:fs/promises'
import { performance } from 'node:perf_hooks'
import { buildApp } from '../../src/app.js'
import { fsSourceReader } from '../../src/catalog/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { countTokens } from '../../src/formats/index.js'
import { SEARCH_TASKS } from '../../test/fixtures/search-tasks.js'
import { fromRoot } from '../../test/helpers/paths.js'

const SEARCH_FILES = ['kubernetes-v1.13.json', 'stripe.json', 'twilio-api-v2010.json']
const ROUNDS = Number(process.argv[2] ?? 6)

const config = await loadConfig(
  { SPECS_DIR: fromRoot('test', 'fixtures', 'real-world'), LOG_LEVEL: 'silent' },
  (path) => readFile(path, 'utf8'),
)
const app = await buildApp({
  config,
  reader: { listFiles: async () => SEARCH_FILES, readText: fsSourceReader.readText },
})
const times: number[] = []
for (let round = 0; round < ROUNDS; round++)
  for (const task of SEARCH_TASKS) {
    const started = performance.now()
    const res = await app.inject(`/tools/search?q=${encodeURIComponent(task.query)}&limit=5`)
    // Round 0 warms the index, the JIT and the definitions cache.
    if (round > 0) times.push(performance.now() - started)
    if (res.statusCode !== 200) throw new Error(`/tools/search answered ${res.statusCode}: ${res.body}`)
  }
times.sort((a, b) => a - b)
const at = (q: number) => times[Math.floor(q * (times.length - 1))]!

const sizes = (await app.inject('/catalog')).json().sizes.discover as Record<string, { tokens?: number }>
const searchMode = await app.inject({
  method: 'POST',
  url: '/mcp?mode=search',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
})
const metaTools = searchMode.json().result.tools as unknown[]
console.log(
  JSON.stringify({
    tools: app.catalogStore.current().search.size,
    queries: times.length,
    p50: at(0.5),
    p99: at(0.99),
    tokens: {
      openai: sizes.openai?.tokens,
      'openai-deferred': sizes['openai-deferred']?.tokens,
      claude: sizes.claude?.tokens,
      'claude-deferred': sizes['claude-deferred']?.tokens,
      mcp: sizes.mcp?.tokens,
      'mcp-search': countTokens(JSON.stringify(metaTools)).tokens,
    },
  }),
)
await app.close()
