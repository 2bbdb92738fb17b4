import assert from 'node:assert/strict'
import { test } from 'node:test'
import { request } from 'undici'
import { testApp } from '../helpers/app.js'

test('a body over BODY_LIMIT is a 413 JSON error with a request id', async (t) => {
  const app = await testApp(t, { BODY_LIMIT: '2048' })
  const res = await app.inject({
    method: 'POST',
    url: '/tools/tickets_list_tickets',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ q: 'x'.repeat(4096) }),
  })
  assert.equal(res.statusCode, 413)
  assert.equal(res.json().code, 'TG_ERR_REQUEST_BODY_TOO_LARGE')
  assert.match(res.json().error, /larger than 2048 bytes \(BODY_LIMIT\)/)
  assert.ok(res.headers['x-request-id'])
})

test('headers over 16 KiB get 431 from the real listener, and the server serves on', async (t) => {
  const app = await testApp(t)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const big = await request(`${url}/health`, { headers: { 'x-padding': 'x'.repeat(20_000) } })
  assert.equal(big.statusCode, 431)
  await big.body.dump()
  const after = await request(`${url}/health`)
  assert.equal(after.statusCode, 200)
  await after.body.dump()
})

test('timeouts are explicit: headers 20 s, whole request 60 s, keep-alive 72 s', async (t) => {
  const app = await testApp(t)
  assert.equal(app.server.headersTimeout, 20_000)
  assert.equal(app.server.requestTimeout, 60_000)
  assert.equal(app.server.keepAliveTimeout, 72_000)
  assert.equal(app.initialConfig.bodyLimit, 1_048_576)
})

test('while draining, /ready is 503 and every response closes its connection; /health stays 200', async (t) => {
  const app = await testApp(t)
  assert.equal((await app.inject('/ready')).statusCode, 200)
  app.lifecycle.draining = true
  const ready = await app.inject('/ready')
  assert.equal(ready.statusCode, 503)
  assert.equal(ready.json().status, 'draining')
  assert.equal(ready.headers.connection, 'close')
  const discovery = await app.inject('/discovery')
  assert.equal(discovery.statusCode, 200, 'the replica keeps serving through the deregistration window')
  assert.equal(discovery.headers.connection, 'close')
  assert.equal((await app.inject('/health')).statusCode, 200)
})

test("GET /documentation/json is the gateway's own OpenAPI description", async (t) => {
  const app = await testApp(t)
  const res = await app.inject('/documentation/json')
  assert.equal(res.statusCode, 200)
  const document = res.json()
  assert.equal(document.openapi, '3.1.0')
  assert.equal(document.info.title, 'toolgate')
  for (const path of [
    '/discovery',
    '/openai.json',
    '/claude.json',
    '/openai-deferred.json',
    '/claude-deferred.json',
    '/tools/{name}',
    '/mcp',
    '/api/sessions',
    '/ready',
    '/metrics',
  ])
    assert.ok(document.paths[path], `${path} is described`)
  assert.ok(document.paths['/openai.json'].get.parameters.some((p: { name: string }) => p.name === 'profile'))
})
