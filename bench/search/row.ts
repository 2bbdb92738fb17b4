// Row 7's child process (issue 15): on Kubernetes 1.13 + Stripe + Twilio in one catalog, the
// latency of GET /tools/search over the relevance tasks (in-process inject: routing, access, the
// index, rendering the definitions), and the tokens an agent's first turn carries in each form:
// the whole /openai.json and /claude.json, their deferred forms, and MCP search mode's tools/list.
// Prints one JSON object.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { countTokens } from '../../src/formats/index.js'
import { SEARCH_TASKS } from '../../test/fixtures/search-tasks.js'
import { fromRoot } from '../../test/helpers/paths.js'

const SEARCH_FILES = ['kubernetes-v1.13.json', 'stripe.json', 'twilio-api-v2010.json']
const ROUNDS = Number(process.argv[2] ?? 6)

// The three specs alone in a directory, built as the server builds them: in its build worker, so
// the process measured holds what a gateway's main thread holds, not a build's garbage (an
// in-process build left ~95 MB for V8 to mark during the measured rounds, pauses of 11–23 ms).
const specs = await mkdtemp(join(tmpdir(), 'toolgate-search-'))
for (const file of SEARCH_FILES)
  await copyFile(fromRoot('test', 'fixtures', 'real-world', file), join(specs, file))
const config = await loadConfig({ SPECS_DIR: specs, LOG_LEVEL: 'silent' }, (path) => readFile(path, 'utf8'))
const app = await buildApp({ config })
// The worker counts tokens after the catalog serves; measured once it is done.
await app.catalogStore.current().tokensSettled
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
await rm(specs, { recursive: true, force: true })
