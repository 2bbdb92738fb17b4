// The collections the build worker asks V8 for (issue 20): a full one between its steps, and before
// it ends one that must give the memory V8 keeps back to the system.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { getHeapSpaceStatistics } from 'node:v8'
import { collectAll, releaseMemory } from '../../src/util/collect-garbage.js'

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

const runtime = Number(process.versions.node.split('.')[0])
// Node 20's V8 (11.3) has no `last-resort` flavour: its gc() ignores it and collects as collectAll.
test('releaseMemory shrinks the young generation a load grew', {
  skip: runtime < 22 && 'Node 20: V8 11.3 has no memory-reducing gc() flavour',
}, () => {
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
