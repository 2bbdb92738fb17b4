// SPEC §3 step 6: the upstream headers a caller is relayed reach it (repeated ones joined), no
// other; the upstream client takes them as undici 7 parses them for its handler (issue 44).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { ToolOutcome } from '../../src/executor/index.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

describe('the relayed upstream headers', () => {
  test('a real answer: relayed headers reach the caller (repeated ones joined), others are not relayed', async (t) => {
    const upstream = await startUpstream(t, (_received, res) => {
      res.writeHead(
        201,
        [
          ['Content-Type', 'application/json; charset=utf-8'],
          ['Location', '/items/7'],
          ['ETag', '"v7"'],
          ['Last-Modified', 'Wed, 25 Nov 2026 11:00:00 GMT'],
          ['Link', '</items?page=2>; rel="next"'],
          ['LINK', '</items?page=9>; rel="last"'],
          ['X-Internal', 'not relayed'],
        ].flat(),
      )
      res.end('{"id":"7"}')
    })
    const spec = openapi({ '/items': { post: { operationId: 'create', responses: ok } } })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const outcome: ToolOutcome = await call('s:create', {})
    assert.equal(outcome.kind, 'answer')
    assert.equal(outcome.status, 201)
    assert.deepEqual(outcome.headers, {
      location: '/items/7',
      etag: '"v7"',
      'last-modified': 'Wed, 25 Nov 2026 11:00:00 GMT',
      link: '</items?page=2>; rel="next", </items?page=9>; rel="last"',
    })
    assert.ok(outcome.kind === 'answer' && outcome.body.type === 'json')
    assert.equal(outcome.body.contentType, 'application/json; charset=utf-8')
    assert.equal(outcome.body.bytes.toString(), '{"id":"7"}')
  })

  test('header names of Object.prototype and odd latin1 values are plain headers, not a crash', async (t) => {
    const upstream = await startUpstream(t, (_received, res) => {
      res.writeHead(
        200,
        [
          ['Content-Type', 'application/json'],
          ['__proto__', 'x'],
          ['Constructor', 'y'],
          ['toString', 'z'],
          ['ETag', '"caf\u00e9"'],
        ].flat(),
      )
      res.end('[]')
    })
    const spec = openapi({ '/items': { get: { operationId: 'list', responses: ok } } })
    const { call } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
      services: { s: { upstream: upstream.url } },
    })
    const outcome: ToolOutcome = await call('s:list', {})
    assert.equal(outcome.kind, 'answer', JSON.stringify(outcome))
    assert.deepEqual(outcome.headers, { etag: '"caf\u00e9"' })
    assert.ok(outcome.kind === 'answer' && outcome.body.type === 'json')
  })
})
