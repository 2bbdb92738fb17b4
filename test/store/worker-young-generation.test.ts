// Issue 20, row 6b: the young generations beside a reload's build. V8 sizes a worker's from the
// process's --max-semi-space-size (the image runs with 16) over resourceLimits, so the build worker
// sets the flag for its isolate; and the main thread gives its own back as a worker starts, when
// it is quiet.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { Worker } from 'node:worker_threads'
import { startWorker, WORKER_SEMI_SPACE_MB } from '../../src/store/catalog-builder.js'
import { MEMORY_REDUCING } from '../../src/util/collect-garbage.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { storeOver } from '../helpers/store.js'
import { leastNewSpaceDuring, load, MB, newSpaceBytes as mainNewSpace } from '../helpers/young-generation.js'

/** Keeps ~40 MB of small objects alive through scavenges, so new space grows to its limit; answers its size in MB. */
const GROWS_NEW_SPACE = `
const { parentPort } = require('node:worker_threads')
const { getHeapSpaceStatistics } = require('node:v8')
const kept = []
for (let i = 0; i < 600000; i++) kept.push({ i, text: 'x' + i })
parentPort.postMessage(getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576)
`

const newSpaceMb = (worker: Worker) =>
  new Promise<number>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })

test('a build worker started under the image flag (--max-semi-space-size=16) has a young generation of its own size', async () => {
  setFlagsFromString('--max-semi-space-size=16')
  // A control: a plain worker takes the process's flag, so the check below is able to fail.
  const plain = await newSpaceMb(new Worker(GROWS_NEW_SPACE, { eval: true }))
  assert.ok(plain > 2 * WORKER_SEMI_SPACE_MB, `a plain worker's new space is ${plain} MB`)
  const small = await newSpaceMb(startWorker(GROWS_NEW_SPACE, { eval: true }))
  assert.ok(small <= 2 * WORKER_SEMI_SPACE_MB, `the build worker's new space is ${small} MB`)
})

/** A store over one small spec, built in the worker, and the changed spec its reload builds. */
async function reloadingStore(t: Parameters<typeof storeOver>[0]) {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 2]))
  const store = await storeOver(t, dir, 'worker')
  await store.current().tokensSettled
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 3]))
  return store
}

// Node 20's V8 has no memory-reducing collection: there the main thread keeps its young generation.
test("a reload gives a quiet main thread's young generation back while the build worker starts (Node 22 on)", async (t) => {
  const store = await reloadingStore(t)
  load()
  const grown = mainNewSpace()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  const { least, answer: record } = await leastNewSpaceDuring(() => store.reload('manual'))
  assert.equal(record.swapped, true, record.error)
  if (MEMORY_REDUCING)
    assert.ok(
      least <= 2 * MB,
      `the main thread's young generation stayed at ${least / MB} MB of ${grown / MB}`,
    )
  else assert.ok(least >= 8 * MB, `Node 20: the main thread's young generation fell to ${least / MB} MB`)
})

test('a reload leaves a busy main thread its young generation', async (t) => {
  const store = await reloadingStore(t)
  load()
  let least = mainNewSpace()
  assert.ok(least >= 8 * MB, `the churn grew the young generation (${least / MB} MB)`)
  let reloaded = false
  const reload = store.reload('manual').finally(() => {
    reloaded = true
  })
  // Busy the whole time the worker boots and builds, as a gateway under load is (without
  // allocating: the young generation stays what the load left, unless the reload collects it).
  while (!reloaded) {
    const until = performance.now() + 20
    while (performance.now() < until);
    least = Math.min(least, mainNewSpace())
    await new Promise((resolve) => setImmediate(resolve))
  }
  const record = await reload
  assert.equal(record.swapped, true, record.error)
  assert.ok(least >= 8 * MB, `the main thread's young generation fell to ${least / MB} MB`)
})

test('the first build leaves the main thread the young generation the start made', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1, 2]))
  load()
  const grown = mainNewSpace()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  const { least } = await leastNewSpaceDuring(() => storeOver(t, dir, 'worker'))
  assert.ok(least >= 8 * MB, `the main thread's young generation fell to ${least / MB} MB`)
})
