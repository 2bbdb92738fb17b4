// The collections the build worker asks V8 for (issue 20): a full one between its steps, and before
// it ends one that must give the memory V8 keeps back to the system.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { getHeapSpaceStatistics } from 'node:v8'
import {
  collectAll,
  MEMORY_REDUCING,
  releaseMemory,
  releaseSpareYoungGeneration,
} from '../../src/util/collect-garbage.js'

const newSpaceBytes = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size
const MB = 1024 * 1024

/** Short-lived garbage, enough for V8 to grow the young generation to its largest. */
function churn() {
  let kept: object[] = []
  for (let i = 0; i < 5_000_000; i++) {
    kept.push({ i })
    if (kept.length > 100_000) kept = []
  }
  return kept.length
}

test('collectAll collects what nothing holds', async () => {
  const ref = new WeakRef({ big: new Array(100_000).fill(1) })
  // A WeakRef holds its target until the end of the job that made it.
  await new Promise((resolve) => setImmediate(resolve))
  collectAll()
  assert.equal(ref.deref(), undefined)
})

// Node 20's V8 (11.3) has no `last-resort` flavour: its gc() ignores it and collects as collectAll.
const NODE_20 = { skip: !MEMORY_REDUCING && 'Node 20: V8 11.3 has no memory-reducing gc() flavour' }

test('MEMORY_REDUCING is false exactly on Node 20', () => {
  assert.equal(MEMORY_REDUCING, Number(process.versions.node.split('.')[0]) >= 22)
})

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('releaseMemory shrinks the young generation a load grew', NODE_20, () => {
  churn()
  const grown = newSpaceBytes()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  releaseMemory()
  const after = newSpaceBytes()
  assert.ok(
    after <= 2 * MB,
    `the young generation is back at its smallest: ${after / MB} MB of ${grown / MB}`,
  )
})

/** A load: churn, then its promoted leftovers collected, as the old generation's are in time. */
function load() {
  churn()
  collectAll()
}

test(
  'releaseSpareYoungGeneration gives back a young generation a load grew, once the thread is quiet',
  NODE_20,
  async () => {
    load()
    const grown = newSpaceBytes()
    assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
    const since = performance.eventLoopUtilization()
    await idle(100)
    assert.equal(releaseSpareYoungGeneration(since), true)
    assert.ok(newSpaceBytes() <= 2 * MB, `the young generation is ${newSpaceBytes() / MB} MB`)
    // Already small: nothing to give back, no pause taken.
    const again = performance.eventLoopUtilization()
    await idle(100)
    assert.equal(releaseSpareYoungGeneration(again), false)
  },
)

test('releaseSpareYoungGeneration leaves a busy thread its young generation', NODE_20, () => {
  const since = performance.eventLoopUtilization()
  load()
  const grown = newSpaceBytes()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  assert.equal(releaseSpareYoungGeneration(since), false)
  assert.equal(newSpaceBytes(), grown)
})
