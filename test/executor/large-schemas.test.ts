// Issue 14 class 7, the validator half: a tool's first call must not stop the gateway while its
// validator is made. Schemas past COMPILED_SCHEMA_NODES are interpreted, not compiled; both kinds
// report the same violations the same way.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import {
  buildSchemaCheck,
  COMPILED_SCHEMA_NODES,
  createArgumentValidator,
} from '../../src/executor/validate-arguments.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, toolById } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

/** One tool whose JSON body has the given properties besides a few with every kind of rule. */
async function toolWith(padding: number) {
  const properties: Record<string, unknown> = {
    title: { type: 'string', minLength: 2 },
    priority: { type: 'string', enum: ['low', 'high'] },
    count: { type: 'integer', minimum: 1 },
    tags: { type: 'array', items: { type: 'string' } },
    contact: {
      type: 'object',
      additionalProperties: false,
      properties: { email: { type: 'string', format: 'email' } },
    },
  }
  for (let i = 0; i < padding; i++) properties[`field${i}`] = { type: 'string', maxLength: 10 }
  const spec = openapi({
    '/things': {
      post: {
        operationId: 'make',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['title'], properties } } },
        },
        responses: ok,
      },
    },
  })
  const catalog = await catalogOf({ 'big.yaml': spec }, { limits: { schemaNodes: 1_000_000 } })
  return toolById(catalog, 'big:make')
}

const byPath = (violations: readonly { path: string; message: string }[]) =>
  [...violations].sort((a, b) => a.path.localeCompare(b.path))

describe('validators for large input schemas', () => {
  test('a compiled and an interpreted validator report the same violations', async () => {
    const small = await toolWith(0)
    const large = await toolWith(COMPILED_SCHEMA_NODES)
    const validator = createArgumentValidator()
    const cases: Record<string, unknown>[] = [
      {},
      { title: 'x', priority: 'whenever', count: 0, tags: ['a', { b: 1 }], contact: { email: 'nope', x: 1 } },
      { title: 'ok', unknown: true },
      { title: 'fine', priority: 'low', count: 3, tags: ['a'], contact: { email: 'a@example.com' } },
    ]
    for (const args of cases) {
      const compiled = validator.check(small, args)
      const interpreted = validator.check(large, args)
      assert.equal(interpreted.ok, compiled.ok, JSON.stringify(args))
      if (!compiled.ok && !interpreted.ok) {
        const paths = (v: readonly { path: string }[]) =>
          byPath(v as { path: string; message: string }[]).map((x) => x.path)
        assert.deepEqual(paths(interpreted.violations), paths(compiled.violations), JSON.stringify(args))
        for (const shared of [
          'is required',
          'is not an argument of this tool',
          'is not a known property here',
        ]) {
          assert.equal(
            interpreted.violations.filter((v) => v.message === shared).length,
            compiled.violations.filter((v) => v.message === shared).length,
            `${shared} for ${JSON.stringify(args)}`,
          )
        }
        const priority = interpreted.violations.find((v) => v.path === '/priority')
        if (priority) assert.equal(priority.message, 'must be one of "low", "high"')
      }
    }
  })

  test('both repair the same model slips: "3" for 3, one value for a list, 5 for "5"', async () => {
    const validator = createArgumentValidator()
    for (const tool of [await toolWith(0), await toolWith(COMPILED_SCHEMA_NODES)]) {
      assert.deepEqual(validator.check(tool, { title: 42, count: '3', tags: 'one' }), {
        ok: true,
        arguments: { title: '42', count: 3, tags: ['one'] },
      })
      const refused = validator.check(tool, { title: 'ok', count: '3.5' })
      assert.equal(refused.ok, false)
    }
  })

  test('the first call of a 10,000-property tool leaves the event loop free (was 3.7 s compiling): Ajv never compiles its schema', async () => {
    const tool = await toolWith(10_000)
    // What stalled the loop was Ajv compiling the schema; whether it does is asserted, not how long
    // the loop stalled (a speed bound on a shared box).
    const ajv = new Ajv2020({ allErrors: true, strict: false })
    const compiled: unknown[] = []
    const compile = ajv.compile.bind(ajv)
    ajv.compile = ((schema: object) => {
      compiled.push(schema)
      return compile(schema)
    }) as typeof ajv.compile
    const unusable = (reason: string) => ({ path: '', message: reason })
    buildSchemaCheck(ajv, tool.inputSchema, { unusable })
    assert.equal(compiled.length, 0, 'a schema past COMPILED_SCHEMA_NODES is interpreted')
    buildSchemaCheck(ajv, (await toolWith(0)).inputSchema, { unusable })
    assert.equal(compiled.length, 1, 'a small one is compiled')

    const validator = createArgumentValidator()
    const checked = validator.check(tool, { title: 'no', field9999: 'far too long for it', nope: 1 })
    assert.equal(checked.ok, false)
    assert.deepEqual(byPath(checked.ok ? [] : checked.violations), [
      { path: '/field9999', message: 'String is too long (19 > 10)' },
      { path: '/nope', message: 'is not an argument of this tool' },
    ])
    assert.deepEqual(validator.check(tool, { title: 'yes', field0: 'short' }), {
      ok: true,
      arguments: { title: 'yes', field0: 'short' },
    })
  })

  test('a pattern no validator could compile is repaired by the catalog and checked: never a crash, never unchecked', async (t) => {
    const upstream = await startUpstream(t)
    const spec = openapi({
      '/things': {
        post: {
          operationId: 'make',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id'],
                  // Not an ECMAScript u-mode regex (stray braces): the catalog reads them as literals.
                  properties: { id: { type: 'string', pattern: '^{[0-9a-f]{8}}$' } },
                },
              },
            },
          },
          responses: ok,
        },
      },
    })
    const catalog = await catalogOf({ 's.yaml': spec })
    assert.equal(
      (toolById(catalog, 's:make').inputSchema.properties as Record<string, { pattern?: string }>).id
        ?.pattern,
      '^\\{[0-9a-f]{8}\\}$',
    )
    const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    const missing = await call('s:make', {})
    assert.equal(missing.status, 400)
    assert.match(JSON.stringify(missing), /\/id.*is required/)
    const refused = await call('s:make', { id: 'anything' })
    assert.equal(refused.status, 400, JSON.stringify(refused))
    assert.match(JSON.stringify(refused), /must match pattern/)
    assert.equal(upstream.received.length, 0)
    assert.equal((await call('s:make', { id: '{0123abcd}' })).status, 200)
    assert.equal(upstream.received.length, 1)
  })
})

test('an optional argument named like an Object.prototype member, left out, is not read off the prototype', () => {
  const names = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__']
  const properties = Object.fromEntries(names.map((name) => [name, { type: 'object' }]))
  for (const padding of [0, COMPILED_SCHEMA_NODES]) {
    // Both kinds: the compiled validator and, past COMPILED_SCHEMA_NODES, the interpreting one.
    for (let i = 0; i < padding; i++) properties[`field${i}`] = { type: 'string' }
    const tool = { id: `proto-${padding}`, inputSchema: { type: 'object', properties } } as never
    const validator = createArgumentValidator()
    assert.deepEqual(validator.check(tool, {}), { ok: true, arguments: {} }, `padding ${padding}`)
    const given = validator.check(tool, { constructor: 'x' })
    assert.equal(given.ok, false, 'a value given is still checked')
  }
})
