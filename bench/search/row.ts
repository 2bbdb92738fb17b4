// Row 7's child process (issues 15 and 43): on the search evaluation set's twelve fixtures plus
// copies of the largest, at least 5,000 tools in one catalog, the latency of GET /tools/search over
// the evaluation set's 240 tasks (in-process inject: routing, access, the index, rendering the
// definitions), what the search index costs in memory and takes to build at that size, and the
// tokens an agent's first turn carries in each form: the whole /openai.json and /claude.json, their
// deferred forms, and MCP search mode's tools/list. Prints one JSON object.
// Run with --expose-gc (row 7c's reading needs full collections it asks for).
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { buildApp } from '../../src/app.js'
import {
  buildSearchIndex,
  buildSearchIndexAsync,
  type ToolSearchIndex,
} from '../../src/catalog/search-index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { countTokens } from '../../src/formats/index.js'
import { fromRoot } from '../../test/helpers/paths.js'
import { evalFixtures, loadEvalTasks } from '../../test/helpers/search-eval.js'

const ROUNDS = Number(process.argv[2] ?? 6)
/** Issue 43: search is held to its targets at this many tools. */
const MIN_TOOLS = 5_000
/**
 * The largest of the twelve fixtures (1,002 of their 3,534 tools), copied under other names until
 * the catalog reaches MIN_TOOLS: a file's name is its service id, so each copy is another service
 * with its own tool ids. Two copies make 5,538 tools.
 */
const LARGEST = 'kubernetes-v1.13.json'
const COPIES = ['kubernetes-v1.13-copy-1.json', 'kubernetes-v1.13-copy-2.json']
const BUILDS = 3

const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc: the index memory is read after full collections')

const tasks = loadEvalTasks()
const fixtures = evalFixtures(tasks)
if (!fixtures.includes(LARGEST)) throw new Error(`${LARGEST} is no longer an evaluation fixture`)

// The files alone in a directory, built as the server builds them: in its build worker, so the
// process measured holds what a gateway's main thread holds, not a build's garbage (an in-process
// build left ~95 MB for V8 to mark during the measured rounds, pauses of 11–23 ms).
const specs = await mkdtemp(join(tmpdir(), 'toolgate-search-'))
const realWorld = (file: string) => fromRoot('test', 'fixtures', 'real-world', file)
for (const file of fixtures) await copyFile(realWorld(file), join(specs, file))
for (const copy of COPIES) await copyFile(realWorld(LARGEST), join(specs, copy))
const config = await loadConfig({ SPECS_DIR: specs, LOG_LEVEL: 'silent' }, (path) => readFile(path, 'utf8'))
const app = await buildApp({ config })
const snapshot = app.catalogStore.current()
const { catalog } = snapshot
const notOk = catalog.sources.filter((source) => source.status !== 'ok')
if (notOk.length > 0) throw new Error(`sources not ok: ${JSON.stringify(notOk.map((s) => s.sourceId))}`)
if (snapshot.search.size < MIN_TOOLS)
  throw new Error(`${snapshot.search.size} tools indexed, fewer than ${MIN_TOOLS}: copy ${LARGEST} more`)
// The worker counts tokens after the catalog serves; measured once it is done.
await snapshot.tokensSettled

const times: number[] = []
for (let round = 0; round < ROUNDS; round++)
  for (const task of tasks) {
    const started = performance.now()
    const res = await app.inject(`/tools/search?q=${encodeURIComponent(task.query)}&limit=5`)
    // Round 0 warms the index, the JIT and the definitions cache.
    if (round > 0) times.push(performance.now() - started)
    if (res.statusCode !== 200) throw new Error(`/tools/search answered ${res.statusCode}: ${res.body}`)
  }
times.sort((a, b) => a - b)
const at = (q: number) => times[Math.floor(q * (times.length - 1))]!

/** Full collections until the used heap stops shrinking (at most 5), then RSS and used heap. */
async function settledMemory() {
  let heapUsed = Number.POSITIVE_INFINITY
  for (let i = 0; i < 5; i++) {
    gc!()
    // Lets freed Buffers' finalizers and V8's page unmapper run before the next reading.
    await sleep(50)
    const now = process.memoryUsage().heapUsed
    if (now >= heapUsed - 64 * 1024) break
    heapUsed = now
  }
  const { rss, heapUsed: used } = process.memoryUsage()
  return { rss, heapUsed: used }
}

// After the latency rounds, so neither a second index nor the builds' garbage is in the heap V8
// marks while queries are timed. The same index the snapshot holds is built again and kept across
// the second reading: the heap figure is its live bytes; the RSS figure also counts the pages its
// build grew the heap by that V8 keeps once the build's garbage is collected, which a gateway
// pays too.
const before = await settledMemory()
let kept: ToolSearchIndex | undefined = buildSearchIndex(catalog)
const after = await settledMemory()
if (kept.size !== snapshot.search.size)
  throw new Error(`kept ${kept.size} tools, not ${snapshot.search.size}`)
kept = undefined

// The store builds with buildSearchIndexAsync (chunks that yield to the event loop), so that is
// what is timed; each index is dropped before the next.
const buildMs: number[] = []
for (let i = 0; i < BUILDS; i++) {
  const started = performance.now()
  const index = await buildSearchIndexAsync(catalog)
  buildMs.push(performance.now() - started)
  if (index.size !== snapshot.search.size)
    throw new Error(`rebuilt ${index.size} tools, not ${snapshot.search.size}`)
}
const mb = (bytes: number) => bytes / 1024 / 1024

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
    tools: snapshot.search.size,
    fixtures,
    copies: { of: LARGEST, as: COPIES },
    tasks: tasks.length,
    queries: times.length,
    p50: at(0.5),
    p99: at(0.99),
    index: {
      rssMb: mb(after.rss - before.rss),
      heapMb: mb(after.heapUsed - before.heapUsed),
      rssBeforeMb: mb(before.rss),
      heapBeforeMb: mb(before.heapUsed),
      buildMs: [...buildMs].sort((a, b) => a - b)[Math.floor(BUILDS / 2)]!,
      builds: buildMs,
    },
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
