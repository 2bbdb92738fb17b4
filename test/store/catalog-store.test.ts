import assert from 'node:assert/strict'
import { rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { fsSourceReader } from '../../src/catalog/index.js'
import { type CatalogStore, createCatalogStore, fingerprintOf } from '../../src/store/index.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { configMapDir, serviceSpec, tempDir } from '../helpers/specs-dir.js'

const render = { opal: { name: 'toolgate', version: '0.0.0', authRequirements: {} } }

async function storeOver(t: { after(fn: () => Promise<unknown>): void }, dir: string) {
  const store = await createCatalogStore({ specsDir: dir, reader: fsSourceReader, options: {}, render })
  t.after(() => store.close())
  return store
}

const toolIds = (store: CatalogStore) => store.current().catalog.tools.map((tool) => tool.id)

/**
 * Resolves with the time it took until `check` holds, polling every 20 ms. A hang check, not a
 * speed bound: it fails only once HANG_BOUND_MS has passed (a reload that never comes).
 */
async function eventually(check: () => boolean, what: string): Promise<number> {
  const started = performance.now()
  while (!check()) {
    if (performance.now() - started > HANG_BOUND_MS) assert.fail(`${what}: not within ${HANG_BOUND_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return performance.now() - started
}

test('a reload that finds nothing new keeps the very same snapshot; one that does swaps it whole', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 2]))
  const store = await storeOver(t, dir)
  const first = store.current()

  const unchanged = await store.reload('manual')
  assert.equal(unchanged.swapped, false)
  assert.equal(store.current(), first)

  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 3]))
  const changed = await store.reload('manual')
  assert.equal(changed.swapped, true)
  assert.deepEqual(changed.diff, { added: ['svc:op3'], removed: ['svc:op2'], changed: [] })
  assert.notEqual(store.current(), first)
  assert.equal(store.current().catalog.version, changed.catalogVersion)
  assert.equal(store.current().reload, changed)
  assert.deepEqual(toolIds(store), ['svc:op1', 'svc:op3'])
  // The snapshot a request took before the swap is whole and unchanged.
  assert.deepEqual(
    first.catalog.tools.map((tool) => tool.id),
    ['svc:op1', 'svc:op2'],
  )
})

test('reloads never overlap: many asked for during one run happen once after it', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1]))
  const store = await storeOver(t, dir)
  const records = await Promise.all([1, 2, 3, 4, 5].map(() => store.reload('manual')))
  assert.equal(store.history().length, 2, 'the running reload, then one for all the others')
  assert.equal(records[0], store.history()[0])
  for (const record of records.slice(1)) assert.equal(record, store.history()[1])
})

test('a specs directory that cannot be read fails the reload and keeps the catalog serving', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1]))
  const store = await storeOver(t, dir)
  await rm(dir, { recursive: true })
  const record = await store.reload('signal')
  assert.equal(record.outcome, 'failed')
  assert.equal(record.swapped, false)
  assert.match(record.error ?? '', /cannot list/)
  assert.deepEqual(toolIds(store), ['svc:op1'])
})

test('the watcher sees files written, broken, fixed and deleted, each within 2 s', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
  const store = await storeOver(t, dir)
  await store.watch({ pollMs: 0, onError: (err) => assert.fail(err) })

  await writeFile(join(dir, 'b.yaml'), serviceSpec([7]))
  await eventually(() => toolIds(store).includes('b:op7'), 'a new file')
  const version = store.current().catalog.version

  await writeFile(join(dir, 'b.yaml'), 'openapi: 3.1.0\npaths: [')
  await eventually(() => store.history().some((r) => r.stale.includes('b.yaml')), 'a broken file')
  assert.equal(store.current().catalog.version, version, 'the broken file keeps its last good version')
  assert.ok(toolIds(store).includes('b:op7'))

  await writeFile(join(dir, 'b.yaml'), serviceSpec([8]))
  await eventually(() => toolIds(store).includes('b:op8'), 'a fixed file')

  await rm(join(dir, 'b.yaml'))
  await eventually(() => !toolIds(store).some((id) => id.startsWith('b:')), 'a deleted file')
  assert.deepEqual(toolIds(store), ['a:op1'])
})

test('Kubernetes ConfigMap swaps (..data renamed over) are seen every time, back to back too', async (t) => {
  const dir = await tempDir(t)
  const mount = await configMapDir(dir, { 'svc.yaml': serviceSpec([0]) })
  const store = await storeOver(t, dir)
  assert.deepEqual(toolIds(store), ['svc:op0'], 'the dot-directories are not read as specs')
  await store.watch({ pollMs: 0, onError: (err) => assert.fail(err) })
  for (const n of [1, 2, 3]) {
    await mount.swap({ 'svc.yaml': serviceSpec([n]) })
    const took = await eventually(() => toolIds(store).includes(`svc:op${n}`), `swap ${n}`)
    t.diagnostic(`swap ${n} served after ${Math.round(took)} ms`)
  }
  // Two swaps 50 ms apart: the second one wins, whatever the first reload saw.
  await mount.swap({ 'svc.yaml': serviceSpec([4]) })
  await new Promise((resolve) => setTimeout(resolve, 50))
  await mount.swap({ 'svc.yaml': serviceSpec([5]) })
  await eventually(() => toolIds(store).join() === 'svc:op5', 'back-to-back swaps')
})

test('the safety-net fingerprint changes on a ConfigMap swap even when size and content length match', async (t) => {
  const dir = await tempDir(t)
  const mount = await configMapDir(dir, { 'svc.yaml': serviceSpec([1]) })
  const before = await fingerprintOf(dir)
  assert.equal(await fingerprintOf(dir), before)
  await mount.swap({ 'svc.yaml': serviceSpec([2]) })
  assert.notEqual(await fingerprintOf(dir), before)
})

test('the periodic check alone reloads when a change slipped past the watcher', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1]))
  const store = await storeOver(t, dir)
  // The watcher's reload waits out its one-second burst limit; the 100 ms poll comes first.
  await store.watch({ pollMs: 100, debounceMs: 60_000, onError: (err) => assert.fail(err) })
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([2]))
  await eventually(() => toolIds(store).includes('svc:op2'), 'the poll')
  assert.equal(store.history().find((record) => record.swapped)?.trigger, 'poll')
})

test('the search index swaps with its catalog: a snapshot searches its own version only', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 2]))
  const store = await storeOver(t, dir)
  const first = store.current()
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 3]))
  assert.equal((await store.reload('manual')).swapped, true)
  const found = (snapshot: typeof first, query: string) =>
    snapshot.search.search(query, { limit: 5 }).map((match) => match.tool.id)
  assert.deepEqual(found(store.current(), 'op3'), ['svc:op3'])
  assert.deepEqual(found(store.current(), 'op2'), [])
  assert.deepEqual(found(first, 'op2'), ['svc:op2'], 'a search that took the old snapshot finishes on it')
  assert.deepEqual(found(first, 'op3'), [])
  assert.equal(store.current().search.size, 2)
})
