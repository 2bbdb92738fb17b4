import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import fc from 'fast-check'
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

/** The hash tree as first written (map/join, `sort` with a comparator): the value every catalog version was made with. */
function referenceHash(value: unknown): string {
  const digest = (text: string) => createHash('sha256').update(text).digest('hex')
  const seen = new WeakMap<object, string>()
  const canonical = (node: unknown): string => {
    if (node === null || typeof node !== 'object') return JSON.stringify(node) ?? 'null'
    const cached = seen.get(node)
    if (cached !== undefined) return cached
    const text = Array.isArray(node)
      ? `[${node.map((item) => canonical(item ?? null)).join(',')}]`
      : `{${Object.keys(node)
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          .filter((key) => (node as Record<string, unknown>)[key] !== undefined)
          .map((key) => `${JSON.stringify(key)}:${canonical((node as Record<string, unknown>)[key])}`)
          .join(',')}}`
    if (text.length <= 512) return text
    const folded = `#${digest(text)}`
    seen.set(node, folded)
    return folded
  }
  return digest(canonical(value))
}

test('contentHash: equal to the hash as first written, for any JSON with any keys, strings and sizes', () => {
  // Objects of up to 40 keys cross the 32 keys past which the built-in sort takes over; short
  // key alphabets make shared prefixes, and long strings make members fold into digests. Strings
  // of any UTF-16 code units (quotes, controls, lone surrogates) are quoted as JSON.stringify does.
  const key = fc.oneof(
    fc.string({ maxLength: 3, unit: fc.constantFrom('a', 'b', 'A', '_', '0', 'é', '~') }),
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 6 }),
  )
  const scalar = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.integer(),
    fc.string({ maxLength: 700 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\ud83d', '\ude00', 'a', 'é'),
      maxLength: 20,
    }),
  )
  const { json } = fc.letrec((tie) => ({
    json: fc.oneof(
      { depthSize: 'small' },
      scalar,
      fc.array(tie('json'), { maxLength: 6 }),
      fc.dictionary(key, fc.option(tie('json'), { nil: undefined }), { maxKeys: 40 }),
    ),
  }))
  fc.assert(
    fc.property(json, (value) => {
      assert.equal(contentHash(value), referenceHash(value))
      assert.equal(contentHash({ one: value, two: value }), referenceHash({ one: value, two: value }))
    }),
    { numRuns: 300 },
  )
})
