import assert from 'node:assert/strict'
import { test } from 'node:test'
import { contentHash } from '../../src/util/content-hash.js'

test('contentHash: key order and undefined members do not matter; content does', () => {
  assert.equal(
    contentHash({ a: 1, b: [1, { c: 'x' }] }),
    contentHash({ b: [1, { c: 'x' }], a: 1, d: undefined }),
  )
  assert.notEqual(contentHash({ a: 1 }), contentHash({ a: 2 }))
  assert.notEqual(contentHash([1, 2]), contentHash([2, 1]))
  assert.notEqual(contentHash({ a: '1' }), contentHash({ a: 1 }))
})

test('contentHash: long and shared members (folded into digests) still hash by content', () => {
  const long = { text: 'x'.repeat(2000), list: Array.from({ length: 100 }, (_, i) => ({ i })) }
  const copy = structuredClone(long)
  assert.equal(contentHash({ one: long, two: long }), contentHash({ one: copy, two: structuredClone(long) }))
  const changed = structuredClone(long)
  changed.list[99]!.i = -1
  assert.notEqual(contentHash({ one: long }), contentHash({ one: changed }))
  assert.notEqual(contentHash({ one: long, two: long }), contentHash({ one: long, two: changed }))
})
