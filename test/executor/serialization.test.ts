// SPEC §3 step 2: the OpenAPI serialization matrix, checked on what a real upstream receives.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

const array = { type: 'array', items: { type: 'string' } }
const object = { type: 'object', properties: { R: { type: 'integer' }, G: { type: 'integer' } } }

/** One GET operation per parameter declaration; each call's request target is returned. */
async function targetsFor(
  t: { after(fn: () => Promise<unknown>): void },
  location: 'path' | 'query' | 'header' | 'cookie',
  cases: { style: string; explode: boolean; schema: unknown; value: unknown; allowReserved?: boolean }[],
) {
  const paths: Record<string, unknown> = {}
  cases.forEach((c, i) => {
    const parameter = {
      name: 'color',
      in: location,
      required: true,
      style: c.style,
      explode: c.explode,
      allowReserved: c.allowReserved,
      schema: c.schema,
    }
    paths[location === 'path' ? `/c${i}/{color}` : `/c${i}`] = {
      get: { operationId: `c${i}`, parameters: [parameter], responses: ok },
    }
  })
  const catalog = await catalogOf({ 's.yaml': openapi(paths) })
  const upstream = await startUpstream(t)
  const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
  const results: string[] = []
  for (const [i, c] of cases.entries()) {
    const outcome = await call(`s:c${i}`, { color: c.value })
    assert.equal(outcome.status, 200, JSON.stringify(outcome))
    const received = upstream.received[i]!
    if (location === 'header') results.push(String(received.headers.color))
    else if (location === 'cookie') results.push(String(received.headers.cookie))
    else results.push(received.target.replace(`/c${i}`, ''))
  }
  return results
}

describe('path parameters: simple, label, matrix × explode (OpenAPI style examples)', () => {
  test('primitive, array and object values', async (t) => {
    const styles = [
      ['simple', false],
      ['simple', true],
      ['label', false],
      ['label', true],
      ['matrix', false],
      ['matrix', true],
    ] as const
    const cases = styles.flatMap(([style, explode]) => [
      { style, explode, schema: { type: 'string' }, value: 'blue' },
      { style, explode, schema: array, value: ['blue', 'black', 'brown'] },
      { style, explode, schema: object, value: { R: 100, G: 200 } },
    ])
    assert.deepEqual(await targetsFor(t, 'path', cases), [
      '/blue',
      '/blue,black,brown',
      '/R,100,G,200',
      '/blue',
      '/blue,black,brown',
      '/R=100,G=200',
      '/.blue',
      '/.blue,black,brown',
      '/.R,100,G,200',
      '/.blue',
      '/.blue.black.brown',
      '/.R=100.G=200',
      '/;color=blue',
      '/;color=blue,black,brown',
      '/;color=R,100,G,200',
      '/;color=blue',
      '/;color=blue;color=black;color=brown',
      '/;R=100;G=200',
    ])
  })

  test('hostile values cannot leave their segment: ../, /, ?, #, unicode, an absolute URL', async (t) => {
    const values = [
      '../../admin',
      '..',
      '.',
      'a/b',
      'x?admin=1',
      'frag#x',
      'ünï/cødé',
      '//evil.example.com/x',
      '%2e%2e',
    ]
    const cases = values.map((value) => ({
      style: 'simple',
      explode: false,
      schema: { type: 'string' },
      value,
    }))
    assert.deepEqual(await targetsFor(t, 'path', cases), [
      '/..%2F..%2Fadmin',
      '/%2E%2E',
      '/%2E',
      '/a%2Fb',
      '/x%3Fadmin%3D1',
      '/frag%23x',
      '/%C3%BCn%C3%AF%2Fc%C3%B8d%C3%A9',
      '/%2F%2Fevil.example.com%2Fx',
      '/%252e%252e',
    ])
  })
})

describe('query parameters: form, spaceDelimited, pipeDelimited, deepObject × explode', () => {
  test('the OpenAPI style examples', async (t) => {
    const cases = [
      { style: 'form', explode: true, schema: { type: 'string' }, value: 'blue' },
      { style: 'form', explode: true, schema: array, value: ['blue', 'black'] },
      { style: 'form', explode: false, schema: array, value: ['blue', 'black'] },
      { style: 'form', explode: true, schema: object, value: { R: 100, G: 200 } },
      { style: 'form', explode: false, schema: object, value: { R: 100, G: 200 } },
      { style: 'spaceDelimited', explode: false, schema: array, value: ['blue', 'black'] },
      { style: 'spaceDelimited', explode: true, schema: array, value: ['blue', 'black'] },
      { style: 'pipeDelimited', explode: false, schema: array, value: ['blue', 'black'] },
      { style: 'pipeDelimited', explode: true, schema: array, value: ['blue', 'black'] },
      { style: 'deepObject', explode: true, schema: object, value: { R: 100, G: 200 } },
      {
        style: 'deepObject',
        explode: true,
        schema: { type: 'object', properties: { a: { type: 'object', properties: { b: array } } } },
        value: { a: { b: ['x', 'y'] } },
      },
    ]
    assert.deepEqual(await targetsFor(t, 'query', cases), [
      '?color=blue',
      '?color=blue&color=black',
      '?color=blue,black',
      '?R=100&G=200',
      '?color=R,100,G,200',
      '?color=blue%20black',
      '?color=blue&color=black',
      '?color=blue|black',
      '?color=blue&color=black',
      '?color[R]=100&color[G]=200',
      '?color[a][b][0]=x&color[a][b][1]=y',
    ])
  })

  test('values are percent-encoded; allowReserved keeps reserved characters but never & = # +', async (t) => {
    const value = 'a b&c=d#e+f/g:h?i'
    const cases = [
      { style: 'form', explode: true, schema: { type: 'string' }, value },
      { style: 'form', explode: true, schema: { type: 'string' }, value, allowReserved: true },
    ]
    assert.deepEqual(await targetsFor(t, 'query', cases), [
      '?color=a%20b%26c%3Dd%23e%2Bf%2Fg%3Ah%3Fi',
      '?color=a%20b%26c%3Dd%23e%2Bf/g:h?i',
    ])
  })
})

describe('header and cookie parameters', () => {
  test('header style simple: primitive, array, object with and without explode', async (t) => {
    const cases = [
      { style: 'simple', explode: false, schema: { type: 'string' }, value: 'blue' },
      { style: 'simple', explode: false, schema: array, value: ['blue', 'black'] },
      { style: 'simple', explode: false, schema: object, value: { R: 100, G: 200 } },
      { style: 'simple', explode: true, schema: object, value: { R: 100, G: 200 } },
    ]
    assert.deepEqual(await targetsFor(t, 'header', cases), [
      'blue',
      'blue,black',
      'R,100,G,200',
      'R=100,G=200',
    ])
  })

  test('cookie style form: values encoded so ; and , cannot inject another cookie', async (t) => {
    const cases = [
      { style: 'form', explode: true, schema: { type: 'string' }, value: 'blue' },
      { style: 'form', explode: false, schema: array, value: ['blue', 'black'] },
      { style: 'form', explode: true, schema: { type: 'string' }, value: 'x; admin=true' },
    ]
    assert.deepEqual(await targetsFor(t, 'cookie', cases), [
      'color=blue',
      'color=blue,black',
      'color=x%3B%20admin%3Dtrue',
    ])
  })

  test('a header value with a line break is refused as an argument violation, never sent', async (t) => {
    const catalog = await catalogOf({
      's.yaml': openapi({
        '/h': {
          get: {
            operationId: 'h',
            parameters: [{ name: 'X-Note', in: 'header', schema: { type: 'string' } }],
            responses: ok,
          },
        },
      }),
    })
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    const outcome = await call('s:h', { 'X-Note': 'hi\r\nX-Admin: 1' })
    assert.equal(outcome.status, 400)
    assert.deepEqual(outcome.kind === 'refusal' && outcome.body.violations, [
      {
        path: '/X-Note',
        message:
          'must be printable ASCII: a header cannot carry line breaks, control or non-ASCII characters',
      },
    ])
    assert.equal(upstream.received.length, 0)
  })
})
