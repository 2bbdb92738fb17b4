import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { jsonBytes } from '../../src/formats/served-document.js'
import { stringifiable } from '../helpers/json-values.js'
import { fromRoot } from '../helpers/paths.js'

const sameAsStringify = (value: unknown) =>
  assert.ok(jsonBytes(value).equals(Buffer.from(JSON.stringify(value))), JSON.stringify(value))

describe('jsonBytes: a document serialized a member at a time', () => {
  test('the same bytes as JSON.stringify for any JSON-like value, undefined members, lone surrogates and toJSON included', () => {
    fc.assert(
      fc.property(stringifiable, (value) => {
        if (JSON.stringify(value) === undefined) return
        sameAsStringify(value)
      }),
      { numRuns: 2_000 },
    )
  })

  test('objects with toJSON, a null prototype, integer-like keys and parts longer than one flush', () => {
    const big = Array.from({ length: 3_000 }, (_, i) => ({
      id: `tool-${i}`,
      text: 'é🙂'.repeat(50 + (i % 7)),
    }))
    sameAsStringify({ tools: big, when: new Date(0), 2: 'two', 1: ['one', undefined] })
    sameAsStringify(Object.assign(Object.create(null), { a: [1, { b: 2 }], c: undefined }))
    sameAsStringify({ toJSON: () => ({ replaced: true }) })
    sameAsStringify([])
    sameAsStringify({})
    sameAsStringify('plain')
  })

  test('a real-world spec, as parsed', () => {
    const spec: unknown = JSON.parse(
      readFileSync(fromRoot('test', 'fixtures', 'real-world', 'kubernetes-v1.13.json'), 'utf8'),
    )
    sameAsStringify(spec)
  })
})
