import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader } from '../helpers/memory-catalog.js'
import { fromRoot } from '../helpers/paths.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

test('GET /health answers 200 with the version headers and a request id', async (t) => {
  const app = await testApp(t)
  const res = await app.inject('/health')
  assert.equal(res.statusCode, 200)
  assert.deepEqual(res.json(), { status: 'ok' })
  assert.equal(res.headers['api-version'], '1.1.0')
  assert.match(String(res.headers['catalog-version']), /^[0-9a-f]{16}$/)
  assert.match(String(res.headers['x-request-id']), UUID_V4)
  // A random UUID per request.
  assert.notEqual((await app.inject('/health')).headers['x-request-id'], res.headers['x-request-id'])
})

test("a request's log lines carry its id and a redacted Authorization; at warn a 304 writes none", async (t) => {
  for (const level of ['info', 'warn']) {
    const lines: Record<string, unknown>[] = []
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()))
        done()
      },
    })
    const config = await loadConfig({ SPECS_DIR: fromRoot('specs'), LOG_LEVEL: level }, (path) =>
      readFile(path, 'utf8'),
    )
    const app = await buildApp({ config, logger: { level, stream } })
    t.after(() => app.close())
    const first = await app.inject('/discovery')
    const before = lines.length
    const res = await app.inject({
      url: '/discovery',
      headers: { 'if-none-match': String(first.headers.etag), authorization: 'Bearer SECRET-5' },
    })
    assert.equal(res.statusCode, 304)
    const mine = lines.slice(before)
    if (level === 'warn') {
      assert.deepEqual(mine, [])
      continue
    }
    assert.deepEqual(
      mine.map((line) => [line.reqId, line.msg]),
      [
        [res.headers['x-request-id'], 'incoming request'],
        [res.headers['x-request-id'], 'request completed'],
      ],
    )
    assert.equal((mine[0]!.req as { headers?: unknown }).headers, undefined)
    assert.ok(!JSON.stringify(mine).includes('SECRET-5'))
  }
})

test('an inbound X-Request-Id is kept when plain, replaced when hostile', async (t) => {
  const app = await testApp(t)
  assert.equal(
    (await app.inject({ url: '/health', headers: { 'x-request-id': 'abc-123' } })).headers['x-request-id'],
    'abc-123',
  )
  const hostile = await app.inject({ url: '/health', headers: { 'x-request-id': 'a b\u0000<script>' } })
  assert.match(String(hostile.headers['x-request-id']), UUID_V4)
})

test('GET /catalog serves the shipped catalog: services, tools, views, workflows, problems, sizes', async (t) => {
  const app = await testApp(t)
  const res = await app.inject('/catalog')
  assert.equal(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /^application\/json/)
  const body = res.json()
  assert.deepEqual(
    body.services.map((s: { id: string }) => s.id),
    ['billing', 'support', 'tickets'],
  )
  assert.equal(body.version, res.headers['catalog-version'])
  assert.ok(body.tools.length >= 20)
  assert.deepEqual(
    body.workflows.map((w: { id: string }) => w.id),
    ['support:escalateUnpaidTicket', 'support:closeTicket'],
  )
  assert.deepEqual(
    body.problems.filter((p: { severity: string }) => p.severity === 'error'),
    [],
  )
  const discover = body.sizes.discover.tools
  assert.equal(discover.tools, body.views.discover.toolIds.length)
  assert.ok(discover.bytes > 1000)
  assert.equal('tokens' in discover, false, 'the plain tool list is not counted')
  const sizes = body.sizes.discover
  for (const format of ['opal', 'openai', 'openai-strict', 'claude', 'mcp'])
    assert.ok(sizes[format].tokens > 1000 && sizes[format].tokens < sizes[format].bytes, format)
  // Deferred: what the model holds before a search, the namespaces or the search tool alone.
  assert.ok(sizes['openai-deferred'].tokens < sizes.openai.tokens / 10)
  assert.ok(sizes['claude-deferred'].tokens < 50)
  assert.equal(sizes['claude-deferred'].tools, discover.tools)
  assert.ok(Date.parse(body.loadedAt) > 0)
})

test('GET /catalog shows each broken source with its problems while the others serve', async (t) => {
  const reader = memoryReader({
    'good.yaml': {
      openapi: '3.1.0',
      info: { title: 'G', version: '1' },
      paths: { '/x': { get: { operationId: 'x', responses: {} } } },
    },
    'broken.yaml': 'openapi: [',
  })
  const app = await testApp(t, { SPECS_DIR: MEMORY_DIR }, reader)
  const body = (await app.inject('/catalog')).json()
  assert.deepEqual(
    body.tools.map((tool: { id: string }) => tool.id),
    ['good:x'],
  )
  assert.deepEqual(
    body.sources.map((s: { sourceId: string; status: string }) => [s.sourceId, s.status]),
    [
      ['broken.yaml', 'failed'],
      ['good.yaml', 'ok'],
    ],
  )
  assert.equal(body.problems[0].file, 'broken.yaml')
})

test('GET /ready and /version report the catalog version', async (t) => {
  const app = await testApp(t)
  const ready = await app.inject('/ready')
  assert.equal(ready.statusCode, 200)
  assert.equal(ready.json().catalogVersion, ready.headers['catalog-version'])
  const version = (await app.inject('/version')).json()
  assert.equal(version.name, 'toolgate')
  assert.match(version.version, /^\d+\.\d+\.\d+/)
  assert.equal(version.catalogVersion, ready.headers['catalog-version'])
})

test('an unknown route answers the shared JSON error shape', async (t) => {
  const app = await testApp(t)
  const res = await app.inject('/nope?x=1')
  assert.equal(res.statusCode, 404)
  assert.deepEqual(res.json(), {
    error: 'No route GET /nope: see GET /documentation/json for the routes',
    code: 'TG_ERR_ROUTE_NOT_FOUND',
  })
})
