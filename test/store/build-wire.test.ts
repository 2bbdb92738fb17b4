// The catalog's crossing from the build worker (build-wire.ts): one V8 serialization read back a
// slice at a time. What the main thread serves must be the catalog the worker built, and an object
// the worker's catalog shares must come back as one object, not a copy per tool (issue 20, row 6).
import assert from 'node:assert/strict'
import { cp } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { type Catalog, fsSourceReader, loadCatalog } from '../../src/catalog/index.js'
import { decodeCatalog, encodeCatalog } from '../../src/store/build-wire.js'
import { fromRoot } from '../helpers/paths.js'
import { tempDir } from '../helpers/specs-dir.js'

/** Every object reachable from `value`, counted once per occurrence (a shared object, once per reference). */
function occurrences(value: unknown, counts = new Map<object, number>()): Map<object, number> {
  if (value === null || typeof value !== 'object') return counts
  const seen = counts.get(value) ?? 0
  counts.set(value, seen + 1)
  if (seen === 0) for (const child of Object.values(value)) occurrences(child, counts)
  return counts
}

const sharedCount = (catalog: Catalog) => [...occurrences(catalog).values()].filter((n) => n > 1).length

test('a catalog crosses from the worker unchanged, frozen, and with the objects it shares still shared', async (t) => {
  const dir = await tempDir(t)
  await cp(fromRoot('specs'), dir, { recursive: true })
  await cp(fromRoot('test', 'fixtures', 'real-world', 'kubernetes-v1.13.json'), join(dir, 'kubernetes.json'))
  const built = await loadCatalog(dir, fsSourceReader)
  const decoded = await decodeCatalog(encodeCatalog(built))
  assert.equal(JSON.stringify(decoded), JSON.stringify(built))
  assert.deepEqual(
    decoded.tools.map((tool) => tool.id),
    built.tools.map((tool) => tool.id),
  )
  assert.equal(decoded.problems.length, built.problems.length)
  assert.ok(
    built.tools.length > 1_000 && built.problems.length > 64,
    'tools and problems span several slices',
  )
  assert.ok(Object.isFrozen(decoded.tools.at(-1)!.inputSchema), 'deep-frozen to the last slice')
  assert.equal(Object.getPrototypeOf(decoded.views), null)
  // Kubernetes' tools share bundled schemas in the worker; JSON gave each tool its own copy.
  const shared = sharedCount(built)
  assert.ok(shared > 500, `the built catalog shares ${shared} objects`)
  assert.equal(sharedCount(decoded), shared)
})

test('an own __proto__ key in a schema stays an own data property across the wire', async () => {
  const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')
  const tool = { id: 'a.b', inputSchema: schema }
  const catalog = {
    version: 'v',
    services: [],
    tools: [tool, { id: 'a.c', inputSchema: schema }],
    views: {},
    workflows: [],
    sources: [],
    problems: [],
  } as unknown as Catalog
  const decoded = await decodeCatalog(encodeCatalog(catalog))
  const properties = (decoded.tools[0]!.inputSchema as { properties: object }).properties
  assert.deepEqual(Object.keys(properties), ['__proto__'])
  assert.equal(Object.getPrototypeOf(properties), Object.prototype)
  assert.equal(decoded.tools[1]!.inputSchema, decoded.tools[0]!.inputSchema)
})
