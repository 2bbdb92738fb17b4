// Issue 17 class 4: keywords Ajv cannot compile (a pattern that is no u-mode regex, a boolean
// exclusiveMaximum in a 3.1 document, a number written as a string) reached every document and
// the validator. The catalog translates what it can, drops the rest, and warns at the pointer.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import { linearPattern } from '../../src/catalog/linear-pattern.js'
import { repairPattern } from '../../src/catalog/repair-pattern.js'
import { linearRegExpEngine } from '../../src/executor/validate-arguments.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/** A one-tool spec whose JSON body has the given properties. */
function bodyOf(properties: Record<string, unknown>) {
  return openapi({
    '/things': {
      post: {
        operationId: 'make',
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties } } } },
        responses: ok,
      },
    },
  })
}

const POINTER = '/paths/~1things/post/requestBody/content/application~1json/schema/properties'

async function normalized(properties: Record<string, unknown>) {
  const catalog = await catalogOf({ 's.yaml': bodyOf(properties) })
  const tool = toolById(catalog, 's:make')
  return { catalog, tool, properties: tool.inputSchema.properties as Record<string, Record<string, unknown>> }
}

function compilesLikeTheExecutor(schema: unknown): void {
  addFormats(
    new Ajv2020({ strict: false, allErrors: true, logger: false, code: { regExp: linearRegExpEngine } }),
  ).compile(schema as object)
}

const isURegExp = (pattern: string) => {
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}
/** What the gateway keeps since issue 41 class 1: a u-mode regex RE2 runs in linear time. */
const isLinear = (pattern: string) => isURegExp(pattern) && linearPattern(pattern) !== undefined

describe('keyword repairs at normalization', () => {
  test('a boolean exclusive bound in a 3.1 document takes the sibling bound (3.0 semantics), else is dropped', async () => {
    const { catalog, tool, properties } = await normalized({
      below: { type: 'number', maximum: 10, exclusiveMaximum: true },
      above: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 5, exclusiveMaximum: false },
      alone: { type: 'number', exclusiveMinimum: true },
    })
    assert.deepEqual(properties.below, { type: 'number', exclusiveMaximum: 10 })
    assert.deepEqual(properties.above, { type: 'integer', exclusiveMinimum: 0, maximum: 5 })
    assert.deepEqual(properties.alone, { type: 'number' })
    assert.deepEqual(
      problemsOf(catalog, 'schema-keyword-invalid').map((p) => p.pointer),
      [
        `${POINTER}/below/exclusiveMaximum`,
        `${POINTER}/above/exclusiveMaximum`,
        `${POINTER}/above/exclusiveMinimum`,
        `${POINTER}/alone/exclusiveMinimum`,
      ],
    )
    compilesLikeTheExecutor(tool.inputSchema)
  })

  test('numbers and flags written as strings are read; values of no possible meaning are dropped', async () => {
    const { catalog, tool, properties } = await normalized({
      name: { type: 'string', maxLength: '64', minLength: -1, format: 7 },
      count: { type: 'int', minimum: '1', multipleOf: 0 },
      tags: { type: 'array', items: { type: 'string' }, uniqueItems: 'true', maxItems: 2.5 },
      mode: { type: ['string', 'text', 'string'], oneOf: [] },
    })
    assert.deepEqual(properties.name, { type: 'string', maxLength: 64 })
    assert.deepEqual(properties.count, { type: 'integer', minimum: 1 })
    assert.deepEqual(properties.tags, { type: 'array', items: { type: 'string' }, uniqueItems: true })
    assert.deepEqual(properties.mode, { type: ['string'] })
    assert.equal(problemsOf(catalog, 'schema-keyword-invalid').length, 10)
    compilesLikeTheExecutor(tool.inputSchema)
  })

  test('a pattern is translated where exact, dropped otherwise, and left alone when it compiles', async () => {
    const { catalog, tool, properties } = await normalized({
      guid: { type: 'string', pattern: '^{[0-9a-f]{8}-[0-9a-f]{4}}$' },
      code: { type: 'string', pattern: '^[[:upper:]]{2}\\d{1, 3}\\Z' },
      slug: { type: 'string', pattern: '^[a-z0-9\\-]+$' },
      dashed: { type: 'string', pattern: '^\\-?\\d++$' },
      caseless: { type: 'string', pattern: '(?i)^abc$' },
      behind: { type: 'string', pattern: '(?<=x)y' },
      map: {
        type: 'object',
        patternProperties: { '^x-{': { type: 'string' }, '(?i)y': { type: 'integer' } },
      },
    })
    assert.equal(properties.guid?.pattern, '^\\{[0-9a-f]{8}-[0-9a-f]{4}\\}$')
    assert.equal(properties.code?.pattern, '^[A-Z]{2}\\d{1,3}$')
    assert.equal(properties.slug?.pattern, '^[a-z0-9\\-]+$', 'compiles already: unchanged')
    assert.equal(properties.dashed?.pattern, '^-?\\d+$')
    assert.equal(properties.caseless?.pattern, undefined)
    // Issue 41 class 1: a lookbehind is ECMAScript, but no linear-time engine runs it: left out.
    assert.equal(properties.behind?.pattern, undefined)
    assert.deepEqual(
      problemsOf(catalog, 'schema-pattern-unsupported').map((p) => p.pointer),
      [`${POINTER}/behind/pattern`],
    )
    assert.match(
      problemsOf(catalog, 'schema-pattern-unsupported')[0]!.message,
      /needs a backtracking engine .*not checked against it here \(the upstream still checks them\)/,
    )
    assert.deepEqual(Object.keys(properties.map?.patternProperties as object), ['^x-\\{'])
    assert.deepEqual(
      problemsOf(catalog, 'schema-pattern-invalid').map((p) => p.pointer),
      [
        `${POINTER}/guid/pattern`,
        `${POINTER}/code/pattern`,
        `${POINTER}/dashed/pattern`,
        `${POINTER}/caseless/pattern`,
        `${POINTER}/map/patternProperties/^x-{`,
        `${POINTER}/map/patternProperties/(?i)y`,
      ],
    )
    assert.match(
      problemsOf(catalog, 'schema-pattern-invalid').find((p) => p.pointer.endsWith('caseless/pattern'))!
        .message,
      /not an ECMAScript \(u-mode\) regular expression; it is left out/,
    )
    compilesLikeTheExecutor(tool.inputSchema)
  })

  test('a keyword beside a $ref is repaired too', async () => {
    const spec = openapi(
      {
        '/things': {
          post: {
            operationId: 'make',
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: { a: { $ref: '#/components/schemas/A', description: 5 } },
                  },
                },
              },
            },
            responses: ok,
          },
        },
      },
      { components: { schemas: { A: { type: 'string', pattern: '\\Aa{' } } } },
    )
    const catalog = await catalogOf({ 's.yaml': spec })
    const tool = toolById(catalog, 's:make')
    assert.deepEqual((tool.inputSchema.properties as Record<string, unknown>).a, {
      type: 'string',
      pattern: '^a\\{',
    })
    assert.deepEqual(
      catalog.problems.map((p) => [p.code, p.pointer]),
      [
        ['schema-keyword-invalid', `${POINTER}/a/description`],
        ['schema-pattern-invalid', '/components/schemas/A/pattern'],
      ],
    )
    compilesLikeTheExecutor(tool.inputSchema)
  })
})

/** Pieces of patterns as specs write them, in every dialect, valid and not. */
const PIECES = [
  'a',
  'Z',
  '0',
  '-',
  '.',
  ' ',
  '\\d',
  '\\w',
  '\\s',
  '\\b',
  '\\-',
  '\\@',
  '\\.',
  '\\/',
  '\\Z',
  '\\A',
  '\\z',
  '\\h',
  '\\Q',
  '\\p{L}',
  '\\u00e9',
  '\\',
  '{',
  '}',
  '{2}',
  '{1,}',
  '{,3}',
  '{1, 3}',
  '{3,1}',
  '[',
  ']',
  '[a-z]',
  '[^0-9]',
  '[\\-_]',
  '[\\@]',
  '[[:alpha:]]',
  '[[:word:]_]',
  '[[:nope:]]',
  '(',
  ')',
  '(?:',
  '(?=',
  '(?!',
  '(?<=',
  '(?<!',
  '(?>',
  '(?i)',
  '(?P<n>',
  '(?P=n)',
  '(?<n>',
  '(?#note)',
  '|',
  '^',
  '$',
  '*',
  '+',
  '?',
  '++',
  '*+',
  '?+',
  '*?',
  '\\1',
  '\\k<n>',
]
const regexish = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
)

describe('pattern repair over generated regex-ish strings', () => {
  test('repairPattern: the result always compiles in u mode; a pattern that compiled is unchanged', () => {
    fc.assert(
      fc.property(regexish, (pattern) => {
        const repaired = repairPattern(pattern)
        // Issue 41 class 1: a u-mode regex RE2 cannot run is left out rather than kept.
        if (isURegExp(pattern)) assert.equal(repaired, isLinear(pattern) ? pattern : undefined)
        else if (repaired !== undefined) assert.ok(isLinear(repaired), `${pattern} → ${repaired}`)
      }),
      { numRuns: 5_000, seed: 4 },
    )
  })

  test('after normalization every pattern compiles, every tool schema compiles, and each change is warned', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(regexish, { minLength: 1, maxLength: 8 }), async (patterns) => {
        const given = Object.fromEntries(patterns.map((pattern, i) => [`p${i}`, { type: 'string', pattern }]))
        const { catalog, tool, properties } = await normalized(given)
        const warned = new Set(
          [
            ...problemsOf(catalog, 'schema-pattern-invalid'),
            ...problemsOf(catalog, 'schema-pattern-unsupported'),
          ].map((p) => p.pointer),
        )
        for (const [i, pattern] of patterns.entries()) {
          const after = properties[`p${i}`]?.pattern as string | undefined
          if (isLinear(pattern)) assert.equal(after, pattern, 'a pattern that runs linearly is unchanged')
          else {
            if (after !== undefined) assert.ok(isLinear(after), `${pattern} → ${after}`)
            assert.ok(warned.has(`${POINTER}/p${i}/pattern`), `${pattern}: warned`)
          }
        }
        compilesLikeTheExecutor(tool.inputSchema)
      }),
      { numRuns: 200, seed: 4 },
    )
  })
})
