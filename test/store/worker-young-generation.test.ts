// Issue 20, row 6b: V8 sizes a worker's young generation from the process's --max-semi-space-size
// (the image runs with 16) over resourceLimits, so the build worker sets the flag for its isolate.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { Worker } from 'node:worker_threads'
import { startWorker, WORKER_SEMI_SPACE_MB } from '../../src/store/catalog-builder.js'

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
