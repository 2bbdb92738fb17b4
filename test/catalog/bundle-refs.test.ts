import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { hasExternalRefs, jsonTextRefsAllLocal } from '../../src/catalog/bundle-refs.js'

test('jsonTextRefsAllLocal: local references only are seen in the text; anything else is left to the walk', () => {
  assert.equal(jsonTextRefsAllLocal('{"a":{"$ref":"#/components/schemas/A"},"b":[{"$ref" :\n "#"}]}'), true)
  assert.equal(jsonTextRefsAllLocal('{"openapi":"3.1.0"}'), true)
  assert.equal(jsonTextRefsAllLocal('{"$ref":"other.json#/A"}'), false)
  assert.equal(jsonTextRefsAllLocal('{"$ref":{"x":1}}'), false)
  // A `$ref` key spelled with escapes is still a `$ref` to JSON.parse.
  assert.equal(jsonTextRefsAllLocal('{"\\u0024ref":"other.json"}'), false)
  assert.equal(hasExternalRefs(JSON.parse('{"\\u0024ref":"other.json"}')), true)
  // "$ref" as a value: not a key, but the scan does not tell them apart; the walk decides.
  assert.equal(jsonTextRefsAllLocal('{"enum":["$ref"]}'), false)
  // Quoted inside a string, its quotes are escaped: it never reads as a key.
  assert.equal(jsonTextRefsAllLocal('{"description":"write \\"$ref\\": \\"x.json\\""}'), true)
  assert.equal(hasExternalRefs(JSON.parse('{"description":"write \\"$ref\\": \\"x.json\\""}')), false)
})

test('jsonTextRefsAllLocal: never true for a text whose tree holds an external reference', () => {
  const ref = fc.oneof(
    fc.constantFrom('#', '#/a', 'a.json', 'a.json#/b', ' #', '', '\\u0023'),
    fc.string({ maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
  )
  const key = fc.oneof(fc.constantFrom('$ref', 'ref', '$re', 'properties', 'a'), fc.string({ maxLength: 5 }))
  const { json } = fc.letrec((tie) => ({
    json: fc.oneof(
      { depthSize: 'small' },
      fc.oneof(fc.constant(null), fc.integer(), ref, fc.constant('$ref')),
      fc.array(tie('json'), { maxLength: 4 }),
      fc.dictionary(key, tie('json'), { maxKeys: 5 }),
      fc.record({ $ref: fc.oneof(ref, tie('json')) }),
    ),
  }))
  fc.assert(
    fc.property(json, fc.constantFrom(undefined, 1, '\t'), (value, indent) => {
      const text = JSON.stringify(value, null, indent)
      if (jsonTextRefsAllLocal(text)) assert.equal(hasExternalRefs(JSON.parse(text)), false)
    }),
    { numRuns: 2000 },
  )
})
