// The collections the build worker asks V8 for (issue 20): a full one between its steps, and before
// it ends one that must give the memory V8 keeps back to the system.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  collectAll,
  MEMORY_REDUCING,
  releaseMemory,
  releaseSpareYoungGeneration,
} from '../../src/util/collect-garbage.js'
import { churn, load, MB, newSpaceBytes } from '../helpers/young-generation.js'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test('collectAll collects what nothing holds', async () => {
  const ref = new WeakRef({ big: new Array(100_000).fill(1) })
  // A WeakRef holds its target until the end of the job that made it.
  await nextTurn()
  collectAll()
  assert.equal(ref.deref(), undefined)
})

// Node 20's V8 (11.3) has no `last-resort` flavour: its gc() ignores it and collects as collectAll,
// and releaseSpareYoungGeneration does nothing there.
test('MEMORY_REDUCING is false exactly on Node 20', () => {
  assert.equal(MEMORY_REDUCING, Number(process.versions.node.split('.')[0]) >= 22)
})

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('releaseMemory collects what nothing holds and, from Node 22, shrinks the young generation a load grew', async () => {
  const ref = new WeakRef({ big: new Array(100_000).fill(1) })
  await nextTurn()
  churn()
  const grown = newSpaceBytes()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  releaseMemory()
  assert.equal(ref.deref(), undefined)
  if (!MEMORY_REDUCING) return
  const after = newSpaceBytes()
  assert.ok(
    after <= 2 * MB,
    `the young generation is back at its smallest: ${after / MB} MB of ${grown / MB}`,
  )
})

test('releaseSpareYoungGeneration gives back a young generation a load grew, once the thread is quiet (Node 22 on)', async () => {
  load()
  const grown = newSpaceBytes()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  const since = performance.eventLoopUtilization()
  await idle(100)
  const collected = releaseSpareYoungGeneration(since)
  if (!MEMORY_REDUCING) {
    // Node 20: a plain full collection would only pause the thread, so none is taken.
    assert.equal(collected, false)
    assert.equal(newSpaceBytes(), grown)
    return
  }
  assert.equal(collected, true)
  assert.ok(newSpaceBytes() <= 2 * MB, `the young generation is ${newSpaceBytes() / MB} MB`)
  // Already small: nothing to give back, no pause taken.
  const again = performance.eventLoopUtilization()
  await idle(100)
  assert.equal(releaseSpareYoungGeneration(again), false)
})

test('releaseSpareYoungGeneration leaves a busy thread its young generation', () => {
  const since = performance.eventLoopUtilization()
  load()
  const grown = newSpaceBytes()
  assert.ok(grown >= 8 * MB, `the churn grew the young generation (${grown / MB} MB)`)
  assert.equal(releaseSpareYoungGeneration(since), false)
  assert.equal(newSpaceBytes(), grown)
})
