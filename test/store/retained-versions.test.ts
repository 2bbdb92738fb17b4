// Row 6b (issue 20): after each reload of a changed spec the gateway's RSS stepped up 20–60 MB.
// The V8 heap was flat after a forced collection (heap used 49–50 MB over 10 Kubernetes reloads,
// external 36.1 MB each time) and malloc_trim(0) gave the step back: glibc's free lists, not a
// retained version. These tests hold that: a version swapped out is collected, whatever was
// derived from it (documents and their compressed forms, /catalog, narrowed views).
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import type { CatalogStore } from '../../src/store/index.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { storeOver, watchServing } from '../helpers/store.js'

/** V8's collector, which `node --expose-gc` gives the script (npm test runs the suite with it). */
const collectAll = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (typeof gc !== 'function') throw new Error('run this test with node --expose-gc (npm test does)')
  gc()
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Uses the serving version as requests do: documents plain and compressed, /catalog, a narrowed view. */
async function serveEverything(store: CatalogStore) {
  const snapshot = store.current()
  for (const [format, views] of Object.entries(snapshot.sizes))
    for (const view of Object.keys(views)) {
      const document = snapshot.documents.get(format, view)
      await document?.encoded('br')
      await document?.encoded('gzip')
      await snapshot.documents.service(format, view, 'svc')?.encoded('br')
    }
  ;(await snapshot.catalogDocument()).plain().resume()
  // A catalog derived for one caller (access scopes make them): its documents are kept per version.
  snapshot.documentsOf({ ...snapshot.catalog }).get('openai', 'discover')
  snapshot.findTool('svc_op1')
  snapshot.search.search('operation', { limit: 5 })
}

async function collected(ref: WeakRef<object>): Promise<boolean> {
  // A WeakRef made in this job stays alive until the job ends: collect after a turn, twice.
  for (let i = 0; i < 3; i++) {
    await nextTurn()
    collectAll()
  }
  return ref.deref() === undefined
}

for (const builder of ['in-process', 'process'] as const)
  test(`a version swapped out by reloads is collected with what was derived from it (${builder} builds)`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 2]))
    const store = await storeOver(t, dir, builder)
    await serveEverything(store)
    await store.current().tokensSettled
    const first = watchServing(store)

    for (const operations of [
      [1, 3],
      [1, 4],
    ]) {
      await writeFile(join(dir, 'svc.yaml'), serviceSpec(operations))
      const record = await store.reload('manual')
      assert.equal(record.swapped, true, record.error)
      await serveEverything(store)
      await store.current().tokensSettled
    }
    assert.equal(store.history().length, 2)

    assert.equal(await collected(first.catalog), true, 'the first catalog is still retained')
    assert.equal(await collected(first.snapshot), true, 'the first snapshot is still retained')
    // A control: the serving version is held, so the check above is able to fail.
    const serving = watchServing(store)
    assert.notEqual(serving.catalog.deref(), undefined)
    assert.equal(await collected(serving.catalog), false)
  })
