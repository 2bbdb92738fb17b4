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

test('contentHash: the digest of a fixed value is pinned (catalog versions must not change with the implementation)', () => {
  const value = JSON.parse(
    `{"__proto__":{"b":1},"é":"accent","Z":"upper","a":"lower","\\ud83d\\ude00":"astral","\\uffff":"bmp end","10":10,"9":9,"quote\\"key":"\\u0000\\n","list":[null,1.5,-0,"x",[],{}],"long":{"text":"${'y'.repeat(600)}","nested":[{"deep":"${'z'.repeat(700)}"}]}}`,
  )
  value.skipped = undefined
  value.list.push(undefined)
  assert.equal(
    contentHash({ one: value, two: value, three: structuredClone(value) }),
    'c94f3e04cbb06089dcff05a7f6919b99352967d918b6ba633674ec8e792fdeae',
  )
})
