import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keepWhenSettled } from '../../src/util/memo.js'

test('keepWhenSettled: callers share the promise, then get the value; a failure is forgotten', async () => {
  let kept: number | Promise<number> | undefined
  const keep = (value: number | Promise<number> | undefined) => {
    kept = value
  }
  const made = keepWhenSettled(Promise.resolve(7), keep)
  assert.equal(kept, made, 'the pending work is kept while it runs')
  assert.equal(await made, 7)
  assert.equal(kept, 7, 'the value replaces the promise')

  const failed = keepWhenSettled(Promise.reject(new Error('no memory')), keep)
  assert.equal(kept, failed)
  await assert.rejects(failed, /no memory/)
  assert.equal(kept, undefined, 'a failure was kept: every later caller would fail too')
})
