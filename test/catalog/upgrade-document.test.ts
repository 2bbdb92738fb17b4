// OpenAPI 3.0 → 3.1: toolgate's one-pass upgrade gives what Scalar's upgrader gives, to the key
// order, the members set to undefined and the `__proto__` keys: on every 3.0 description of the
// real-world corpus, on GitHub's, and on documents made to reach each rule of the upgrade.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { parse } from 'yaml'
import { upgradeFrom30, upgradeWithScalar } from '../../src/catalog/upgrade-document.js'
import { fromRoot } from '../helpers/paths.js'

/**
 * The value as a text that tells apart what JSON.stringify does not: key order at every level,
 * a member whose value is undefined, an own `__proto__` key, an object's prototype.
 */
function shape(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(shape).join(',')}]`
  const proto = Object.getPrototypeOf(value) === Object.prototype ? '' : '!proto'
  const members = Object.keys(value).map(
    (key) => `${JSON.stringify(key)}:${shape((value as Record<string, unknown>)[key])}`,
  )
  return `${proto}{${members.join(',')}}`
}

/** Every object and array in a value. */
function nodesOf(value: unknown, into = new Set<object>()): Set<object> {
  if (value === null || typeof value !== 'object' || into.has(value)) return into
  into.add(value)
  for (const child of Object.values(value)) nodesOf(child, into)
  return into
}

/** `tree`: no node of the document is shared (JSON.parse's), so the in-place upgrade applies too. */
function assertSameUpgrade(document: Record<string, unknown>, { tree = true } = {}): void {
  const before = shape(document)
  const ours = upgradeFrom30(document)
  assert.equal(shape(document), before, 'the document passed in is not changed')
  const expected = shape(upgradeWithScalar(document))
  assert.equal(shape(ours), expected)
  const inputs = nodesOf(document)
  assert.ok(
    ![...nodesOf(ours)].some((node) => inputs.has(node)),
    'nothing is shared with the document passed in',
  )
  if (tree) assert.equal(shape(upgradeFrom30(document, { inPlace: true })), expected, 'in place')
}

function readSpec(file: string): Record<string, unknown> {
  const text = readFileSync(file, 'utf8')
  return (file.endsWith('.json') ? JSON.parse(text) : parse(text, { uniqueKeys: false })) as Record<
    string,
    unknown
  >
}

describe('OpenAPI 3.0 → 3.1 (upgrade-document.ts)', () => {
  const corpus = (
    JSON.parse(readFileSync(fromRoot('test', 'fixtures', 'real-world', 'index.json'), 'utf8')) as {
      file: string
      format: string
    }[]
  ).filter((entry) => entry.format.startsWith('openapi-3.0'))

  test('the corpus has OpenAPI 3.0 descriptions to compare on', () => {
    assert.ok(corpus.length >= 5, `${corpus.length} descriptions`)
  })

  for (const { file } of corpus) {
    test(`${file}: the same document as Scalar's upgrader`, () => {
      assertSameUpgrade(readSpec(fromRoot('test', 'fixtures', 'real-world', file)), {
        tree: file.endsWith('.json'),
      })
    })
  }

  test("GitHub's REST description (row 4 of the bench): the same document as Scalar's upgrader", () => {
    assertSameUpgrade(
      readSpec(fromRoot('node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json')),
    )
  })

  test('every rule of the upgrade, at every kind of place', () => {
    const binary = { type: 'string', format: 'binary', description: 'file' }
    const document = JSON.parse(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 't', version: '1', example: 'not a schema' },
        'x-webhooks': { hook: { post: { responses: {} } } },
        paths: {
          '/x': {
            post: {
              requestBody: {
                content: {
                  'multipart/form-data': {
                    schema: { type: 'object', properties: { file: binary, text: { type: 'string' } } },
                    example: { file: 'x' },
                  },
                  'application/octet-stream': { schema: binary },
                  'application/json': {
                    schema: {
                      type: 'object',
                      nullable: true,
                      properties: {
                        b64: { type: 'string', format: 'base64' },
                        byte: { type: 'string', format: 'byte', nullable: true },
                        n: {
                          type: 'number',
                          minimum: 1,
                          exclusiveMinimum: true,
                          maximum: 9,
                          exclusiveMaximum: false,
                        },
                        m: { type: 'integer', exclusiveMaximum: true },
                        examples: { type: 'string', example: 'a property named examples' },
                        nested: { type: 'array', items: [[{ example: 1, nullable: true, type: 'x' }]] },
                        tuple: { type: 'array', items: [{ type: 'string', format: 'byte' }, 3, null] },
                        nullableOnly: { nullable: true },
                        nullableFalse: { type: 'string', nullable: false },
                      },
                      example: { b64: 'x' },
                      examples: ['kept', 'overwritten'],
                    },
                    examples: { one: { value: { example: 'inside a map of examples', type: 'string' } } },
                  },
                },
              },
              responses: {
                '200': {
                  description: 'ok',
                  headers: { H: { schema: { type: 'string', format: 'byte' }, example: 'h' } },
                  content: {
                    'text/plain': { schema: { type: 'string', format: 'byte' } },
                    'text/csv': { type: 'string', format: 'byte' },
                  },
                },
              },
            },
          },
        },
        components: {
          schemas: {
            Top: { type: 'string', format: 'byte', example: 'top' },
            Obj: { type: 'object', example: { a: 1 }, properties: { 'x-webhooks': { type: 'string' } } },
          },
          parameters: {
            P: { name: 'p', in: 'query', schema: { type: 'string', format: 'binary' }, example: 'p' },
          },
          requestBodies: { Upload: { content: { 'multipart/form-data': { schema: { $ref: '#/x' } } } } },
          examples: { E: { value: { example: 'stays', nullable: true, type: 'string' } } },
          mySchema: { deep: { example: 'under a …Schema segment' } },
        },
      }),
    )
    assertSameUpgrade(document)
  })

  test('`__proto__` keys, integer-like keys and arrays inside arrays come through as they are', () => {
    const document = JSON.parse(
      '{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":' +
        '{"__proto__":{"type":"object","properties":{"__proto__":{"type":"string","nullable":true},' +
        '"2":{"type":"integer"},"10":{"type":"integer"},"a":{"example":[[{"__proto__":1}]]}}},' +
        '"__toolgate_escaped___proto__":{"type":"string","format":"byte"}}}}',
    )
    assertSameUpgrade(document)
    const upgraded = upgradeFrom30(document) as { components: { schemas: Record<string, unknown> } }
    assert.ok(Object.hasOwn(upgraded.components.schemas, '__proto__'))
    assert.equal(Object.getPrototypeOf(upgraded.components.schemas), Object.prototype)
  })

  test('YAML anchors: every use of a shared node is upgraded where it stands', () => {
    assertSameUpgrade(
      parse(`
openapi: 3.0.1
info: { title: t, version: '1' }
paths:
  /x:
    get:
      parameters:
        - { name: a, in: query, schema: &shared { type: string, format: byte, example: e, nullable: true } }
      responses:
        '200':
          description: ok
          content:
            application/octet-stream: { schema: *shared }
            text/csv: { example: *shared }
`) as Record<string, unknown>,
      { tree: false },
    )
  })
})
