// Issue 16: the gateway checks MCP structuredContent against the tool's output schema to count
// lying upstreams. Small schemas are compiled, big ones interpreted (no compile on the event
// loop); both name the first violation's pointer, never change the answer.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createOutputValidator } from '../../src/executor/index.js'
import { COMPILED_SCHEMA_NODES } from '../../src/executor/validate-arguments.js'
import { catalogOf, openapi, toolById } from '../helpers/memory-catalog.js'

/** A tool whose 200 answer is an object with `padding` extra string properties and a typed `count`. */
async function toolAnswering(padding: number) {
  const properties: Record<string, unknown> = {
    count: { type: 'integer' },
    nested: { type: 'object', properties: { when: { type: 'string' } } },
    constructor: { type: 'string' },
  }
  for (let i = 0; i < padding; i++) properties[`field${i}`] = { type: 'string' }
  const spec = openapi({
    '/thing': {
      get: {
        operationId: 'thing',
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'object', properties } } },
          },
        },
      },
    },
  })
  const catalog = await catalogOf({ 'a.yaml': spec }, { limits: { outputSchemaNodes: 1_000_000 } })
  return toolById(catalog, 'a:thing')
}

describe('output validator', () => {
  for (const [kind, padding] of [
    ['compiled', 0],
    ['interpreted', COMPILED_SCHEMA_NODES],
  ] as const) {
    test(`${kind}: the first violation's pointer; what matches (nulls, extra keys, no constructor) passes`, async () => {
      const tool = await toolAnswering(padding)
      const validator = createOutputValidator()
      const answer = Object.freeze({ count: 1.5, nested: { when: 7 } })
      const violation = validator.check(tool, answer)
      assert.ok(violation)
      assert.match(violation.path, /^\/(count|nested\/when)$/)
      assert.equal(
        validator.check(tool, { count: null, nested: { when: 'now', extra: [] }, more: 1 }),
        undefined,
      )
      assert.equal(
        validator.check(tool, {}),
        undefined,
        'an absent constructor is not Object.prototype.constructor',
      )
    })
  }

  test('a tool without an output schema is never a mismatch', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': { get: { operationId: 'x', responses: { '204': { description: 'none' } } } },
      }),
    })
    assert.equal(createOutputValidator().check(toolById(catalog, 'a:x'), { anything: true }), undefined)
  })
})
