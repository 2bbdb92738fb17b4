// The catalog crosses from the build worker as JSON bytes; decoding interns repeated strings
// (issue 20: Kubernetes' 1,002 tools held 194k copies of 51k descriptions). The catalog that comes
// out must be the one that went in, key for key.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { fsSourceReader, loadCatalog } from '../../src/catalog/index.js'
import { decodeCatalog, encodeCatalog } from '../../src/store/build-wire.js'
import { fromRoot } from '../helpers/paths.js'

test('a catalog decoded from its bytes equals the catalog encoded, strings interned or not', async () => {
  const catalog = await loadCatalog(fromRoot('specs'), fsSourceReader)
  const decoded = await decodeCatalog(encodeCatalog(catalog))
  assert.deepEqual(JSON.parse(JSON.stringify(decoded)), JSON.parse(JSON.stringify(catalog)))
  assert.ok(Object.isFrozen(decoded.tools[0]), 'decoded tools stay frozen')
})

test('interning keeps every JSON value as it was: generated values with repeated strings and __proto__ keys', async () => {
  const text = fc.constantFrom('a description long enough to intern', 'short', '__proto__', 'x'.repeat(40))
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.constant(null),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(fc.oneof(text, fc.constant('__proto__')), tie('value'), { maxKeys: 4 }),
  })).value
  await fc.assert(
    fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 5 }), async (problems) => {
      const catalog = {
        version: 'v',
        services: [],
        tools: [],
        views: {},
        workflows: [],
        sources: [],
        problems,
      }
      const decoded = await decodeCatalog(encodeCatalog(catalog as never))
      assert.equal(JSON.stringify(decoded.problems), JSON.stringify(problems))
      assert.equal(({} as { polluted?: unknown }).polluted, undefined)
    }),
    { numRuns: 200 },
  )
})
