// Issue 14, class 7: a large spec reloads while the gateway keeps answering. The built server,
// /health asked every 10 ms (open loop) all along, two large files renamed into its specs directory.
import assert from 'node:assert/strict'
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { DEFAULT_CATALOG_LIMITS } from '../../src/catalog/index.js'
import { figuresOf, probeHealth, sampleRss } from '../helpers/health-probe.js'
import { largeSpec } from '../helpers/large-spec.js'
import { type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'

/**
 * A hang check, not a speed bound: a reload that never records fails the test instead of hanging
 * the run. How long /health takes during a 20,000-operation reload is a figure of the bench (row
 * 9f, bench/rows/scale.ts), not an assertion here.
 */
const RELOAD_LIMIT_MS = 120_000

interface Reload {
  readonly outcome: string
  readonly swapped: boolean
  readonly durationMs: number
  readonly failed: readonly string[]
  readonly error?: string
  readonly diff: { readonly added: readonly string[] }
}

const json = async <T>(url: string): Promise<T> => (await (await fetch(url)).json()) as T
const reloads = (server: StartedServer) =>
  json<{ reloads: Reload[] }>(`${server.url}/catalog/reloads`).then((body) => body.reloads)

/** Renames `file` (written beside the specs directory) into it, and waits for the reload it causes. */
async function reloadWith(server: StartedServer, staged: string, dir: string, name: string) {
  const count = (await reloads(server)).length
  const triggered = performance.now()
  await rename(staged, join(dir, name))
  for (;;) {
    const record = (await reloads(server))[count]
    if (record) return { record, triggered, finished: performance.now() }
    assert.ok(performance.now() - triggered < RELOAD_LIMIT_MS, `no reload recorded for ${name}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

test('reloading large specs never stops /health: one at limits.operations swaps in, one over it is refused with a clear problem', async (t) => {
  const limit = DEFAULT_CATALOG_LIMITS.operations
  const dir = await tempDir(t)
  const staging = await mkdtemp(join(tmpdir(), 'toolgate-staging-'))
  t.after(() => rm(staging, { recursive: true, force: true }))
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1, 2]))
  await writeFile(join(staging, 'large.json'), largeSpec(limit))
  await writeFile(join(staging, 'huge.json'), largeSpec(limit + 1))
  const server = await startServerProcess({
    SPECS_DIR: dir,
    EXAMPLE_UPSTREAM: 'off',
    SPECS_POLL_INTERVAL: '0',
  })
  t.after(() => stopServerProcess(server))
  const rss = sampleRss(server.child.pid!)
  const probe = probeHealth(server.url)
  const before = await json<{ catalogVersion: string }>(`${server.url}/version`)

  const large = await reloadWith(server, join(staging, 'large.json'), dir, 'large.json')
  assert.equal(large.record.outcome, 'ok', large.record.error)
  assert.equal(large.record.swapped, true)
  assert.equal(large.record.diff.added.length, limit)
  const afterLarge = await json<{ tools: number; catalogVersion: string }>(`${server.url}/ready`)
  assert.equal(afterLarge.tools, limit + 2, 'the large file serves beside the small one')
  assert.notEqual(afterLarge.catalogVersion, before.catalogVersion)

  const huge = await reloadWith(server, join(staging, 'huge.json'), dir, 'huge.json')
  assert.equal(huge.record.outcome, 'failed')
  assert.deepEqual(huge.record.failed, ['huge.json'])
  const ready = await fetch(`${server.url}/ready`)
  assert.equal(ready.status, 200, 'a refused file does not fail readiness')
  const afterHuge = (await ready.json()) as {
    tools: number
    catalogVersion: string
    lastReload: { outcome: string }
    brokenSources: { source: string; status: string; problem?: string }[]
  }
  assert.equal(afterHuge.tools, limit + 2, 'the other files keep serving')
  assert.equal(afterHuge.lastReload.outcome, 'failed')
  const [broken] = afterHuge.brokenSources
  assert.equal(broken?.source, 'huge.json')
  assert.equal(broken?.status, 'failed')
  assert.match(
    broken?.problem ?? '',
    new RegExp(`declares ${limit + 1} operations, more than limits\\.operations \\(${limit}\\)`),
  )

  const samples = await probe.stop()
  const memory = await rss.stop()
  const all = figuresOf(samples)
  assert.deepEqual(all.errors, [], 'every /health answered 200')
  for (const [what, reload] of [
    [`${limit} operations, swapped in`, large],
    [`${limit + 1} operations, refused`, huge],
  ] as const) {
    const health = figuresOf(samples, reload.triggered, reload.finished)
    t.diagnostic(
      `${what}: reload ${reload.record.durationMs} ms; /health during it: ${health.count} probes, p50 ${health.p50} ms, p99 ${health.p99} ms, max ${health.max} ms`,
    )
    assert.ok(health.count > 10, `probed during the reload (${health.count})`)
  }
  t.diagnostic(`RSS: peak ${memory.peakRssMb} MB (VmHWM ${memory.hwmMb} MB)`)
})
