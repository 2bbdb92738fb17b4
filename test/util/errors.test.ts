import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROBLEM_CODES } from '../../src/catalog/problems.js'
import { errors } from '../../src/errors.js'

test('every HTTP error code is unique, named TG_ERR_<AREA>_<WHAT>, with an error status', () => {
  const codes = Object.values(errors).map((E) => new E('a', 'b'))
  assert.equal(new Set(codes.map((e) => e.code)).size, codes.length)
  for (const error of codes) {
    assert.match(error.code, /^TG_ERR_[A-Z]+_[A-Z_]+$/)
    assert.ok(error.statusCode && error.statusCode >= 400 && error.statusCode < 600)
    assert.ok(error.message.length > 10)
  }
})

test('every catalog problem code is kebab-case and explained', () => {
  for (const [code, meaning] of Object.entries(PROBLEM_CODES)) {
    assert.match(code, /^[a-z]+(-[a-z]+)+$/)
    assert.ok(meaning.length > 10, code)
  }
})
