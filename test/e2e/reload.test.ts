// Hot reload under load (SPEC §5): the built server, a real specs directory, requests all along.
import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { type LoadResponse, startLoad } from '../helpers/load.js'
import { type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { configMapDir, serviceSpec, tempDir } from '../helpers/specs-dir.js'

/** A hang check: a change never seen fails the test instead of hanging the run (typically < 1 s). */
const RELOAD_LIMIT_MS = 30_000

async function catalogVersion(server: StartedServer): Promise<string> {
  return ((await (await fetch(`${server.url}/version`)).json()) as { catalogVersion: string }).catalogVersion
}

/** Waits for `/version` to leave `before`; resolves with the milliseconds it took. */
async function newVersionWithin(server: StartedServer, before: string, what: string): Promise<number> {
  const started = performance.now()
  for (;;) {
    if ((await catalogVersion(server)) !== before) return performance.now() - started
    if (performance.now() - started > RELOAD_LIMIT_MS)
      assert.fail(`${what}: no new Catalog-Version within ${RELOAD_LIMIT_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function sourceStatus(server: StartedServer, sourceId: string): Promise<string | undefined> {
  const catalog = (await (await fetch(`${server.url}/catalog`)).json()) as {
    sources: { sourceId: string; status: string }[]
  }
  return catalog.sources.find((source) => source.sourceId === sourceId)?.status
}

/** The wire names a discovery response lists. */
const namesIn = (response: LoadResponse) =>
  ((JSON.parse(response.body) as { functions: { name: string }[] }).functions.map((f) => f.name) ?? [])
    .sort()
    .join(',')

/**
 * Every response answered 2xx, and every response's body is the catalog its Catalog-Version header
 * names: one tool list per version, and that list is one of the states the test wrote.
 */
function assertNeverMixed(responses: readonly LoadResponse[], states: readonly string[]) {
  const bad = responses.filter((response) => response.status < 200 || response.status > 299)
  assert.deepEqual(
    bad.map((response) => `${response.path} ${response.status} ${response.body.slice(0, 200)}`),
    [],
  )
  const byVersion = new Map<string, string>()
  for (const response of responses.filter((r) => r.path === '/discovery')) {
    const version = String(response.headers['catalog-version'])
    const names = namesIn(response)
    if (!byVersion.has(version)) byVersion.set(version, names)
    assert.equal(names, byVersion.get(version), `two different tool lists under Catalog-Version ${version}`)
    assert.ok(states.includes(names), `Catalog-Version ${version} served tools no state had: ${names}`)
  }
  return byVersion
}

const state = (...services: [string, number[]][]) =>
  services
    .flatMap(([service, ops]) => ops.map((n) => `${service}_op${n}`))
    .sort()
    .join(',')

test('edits, breaks, fixes and deletes under load: every answer 2xx from one whole catalog, each change served (typically within a second)', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'a.yaml'), serviceSpec([1, 2]))
  const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off' })
  t.after(() => stopServerProcess(server))
  const load = startLoad(server.url, (n) => ({ path: n % 3 === 2 ? '/openai.json' : '/discovery' }))
  t.after(() => load.stop())
  const states = [state(['a', [1, 2]])]

  const step = async (what: string, change: () => Promise<void>, expected: string) => {
    const before = await catalogVersion(server)
    await change()
    states.push(expected)
    const took = await newVersionWithin(server, before, what)
    t.diagnostic(`${what}: new Catalog-Version after ${Math.round(took)} ms`)
  }
  await step('edit', () => writeFile(join(dir, 'a.yaml'), serviceSpec([1, 2, 3])), state(['a', [1, 2, 3]]))
  await step(
    'add a file',
    () => writeFile(join(dir, 'b.yaml'), serviceSpec([1])),
    state(['a', [1, 2, 3]], ['b', [1]]),
  )

  const beforeBreak = await catalogVersion(server)
  await writeFile(join(dir, 'a.yaml'), 'openapi: 3.1.0\npaths: [unclosed')
  const started = performance.now()
  while ((await sourceStatus(server, 'a.yaml')) !== 'stale') {
    assert.ok(performance.now() - started < RELOAD_LIMIT_MS, 'the broken file is reported')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.equal(await catalogVersion(server), beforeBreak, 'a broken file keeps the last good catalog serving')
  const ready = await fetch(`${server.url}/ready`)
  assert.equal(ready.status, 200, 'a broken spec does not fail readiness')

  await step(
    'fix',
    () => writeFile(join(dir, 'a.yaml'), serviceSpec([1, 4])),
    state(['a', [1, 4]], ['b', [1]]),
  )
  await step('delete a file', () => rm(join(dir, 'b.yaml')), state(['a', [1, 4]]))

  const { responses, failures } = await load.stop()
  assert.deepEqual(failures, [])
  const versions = assertNeverMixed(responses, states)
  assert.ok(responses.length >= 100, `the load ran all along (${responses.length} responses)`)
  assert.ok(versions.size >= 4, `the load saw the versions change (${versions.size} seen)`)
  assert.match(server.logs(), /spec problem in a\.yaml/, 'the broken file is in the log')
})

test('ConfigMap-style ..data symlink swaps under load: the same guarantees', async (t) => {
  const dir = await tempDir(t)
  const mount = await configMapDir(dir, { 'svc.yaml': serviceSpec([0]) })
  const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off' })
  t.after(() => stopServerProcess(server))
  const load = startLoad(server.url, () => ({ path: '/discovery' }))
  t.after(() => load.stop())
  const states = [state(['svc', [0]])]
  for (const n of [1, 2, 3, 4]) {
    const before = await catalogVersion(server)
    states.push(state(['svc', [n, n + 10]]))
    await mount.swap({ 'svc.yaml': serviceSpec([n, n + 10]) })
    const took = await newVersionWithin(server, before, `swap ${n}`)
    t.diagnostic(`swap ${n}: new Catalog-Version after ${Math.round(took)} ms`)
  }
  // A broken version mounted the same way keeps the last good one serving.
  const before = await catalogVersion(server)
  await mount.swap({ 'svc.yaml': '{"openapi": "3.1.0", "paths": ' })
  const started = performance.now()
  while ((await sourceStatus(server, 'svc.yaml')) !== 'stale') {
    assert.ok(performance.now() - started < RELOAD_LIMIT_MS, 'the broken file is reported')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.equal(await catalogVersion(server), before)

  const { responses, failures } = await load.stop()
  assert.deepEqual(failures, [])
  const versions = assertNeverMixed(responses, states)
  assert.ok(versions.size >= 4, `the load saw the swaps (${versions.size} versions seen)`)
})
