// GET /discovery over HTTP (seed 000 checklist) and POST /tools/:name as Opal and its debugger call it.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { fsSourceReader } from '../../src/catalog/index.js'
import { exampleApp, testApp } from '../helpers/app.js'
import { opalChecklist } from '../helpers/opal-checklist.js'
import { fromRoot } from '../helpers/paths.js'

describe('GET /discovery (seed 000 validation checklist)', () => {
  test('200, application/json, no auth needed, caching disabled, CORS open, the checklist holds', async (t) => {
    const app = await testApp(t)
    const res = await app.inject({ url: '/discovery', headers: { origin: 'https://opal.example.com' } })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    assert.equal(res.headers['cache-control'], 'no-cache, no-store, must-revalidate')
    assert.equal(res.headers['access-control-allow-origin'], '*')
    const document = res.json()
    assert.deepEqual(Object.keys(document), ['functions', 'name', 'description', 'version'])
    assert.deepEqual(opalChecklist(document), [])
    assert.equal(document.functions.length, 22)
    assert.ok(
      document.functions.every((f: { endpoint: string; name: string }) => f.endpoint === `/tools/${f.name}`),
    )
  })

  test('the same bytes every time, with a strong ETag (304) and brotli/gzip variants', async (t) => {
    const app = await testApp(t)
    const plain = await app.inject('/discovery')
    const again = await app.inject('/discovery')
    assert.equal(plain.body, again.body)
    const etag = String(plain.headers.etag)
    assert.match(etag, /^"[\w-]+"$/)
    const cached = await app.inject({ url: '/discovery', headers: { 'if-none-match': etag } })
    assert.equal(cached.statusCode, 304)
    assert.equal(cached.body, '')
    const br = await app.inject({ url: '/discovery', headers: { 'accept-encoding': 'gzip, br' } })
    assert.equal(br.headers['content-encoding'], 'br')
    assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body)
    const gzip = await app.inject({ url: '/discovery', headers: { 'accept-encoding': 'gzip, br;q=0' } })
    assert.equal(gzip.headers['content-encoding'], 'gzip')
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body)
  })

  test('?profile= serves a profile view; an unknown profile is a 400 listing the views', async (t) => {
    const { app } = await exampleApp(t, 'profiles:\n  readers: { safety: { readOnly: true } }\n')
    const readers = (await app.inject('/discovery?profile=readers')).json()
    assert.deepEqual(opalChecklist(readers), [])
    assert.ok(readers.functions.length > 0 && readers.functions.length < 20)
    assert.ok(
      readers.functions.every(
        (f: { name: string }) =>
          /_(get|list|search|download)_/.test(f.name) ||
          f.name.includes('history') ||
          f.name.includes('status') ||
          f.name.includes('balance'),
      ),
    )
    const unknown = await app.inject('/discovery?profile=nope')
    assert.equal(unknown.statusCode, 400)
    assert.deepEqual(unknown.json(), {
      error: 'Unknown profile nope: use one of discover, readers',
      code: 'TG_ERR_PROFILE_UNKNOWN',
    })
  })

  test('the checklist over HTTP on a large real-world spec (Stripe, 452 operations)', async (t) => {
    const reader = { listFiles: async () => ['stripe.json'], readText: fsSourceReader.readText }
    const app = await testApp(t, { SPECS_DIR: fromRoot('test', 'fixtures', 'real-world') }, reader)
    const res = await app.inject('/discovery')
    assert.equal(res.statusCode, 200)
    assert.deepEqual(opalChecklist(res.json()), [])
    assert.equal(res.json().functions.length, 452)
  })

  test('registered with a trailing slash: /discovery/ answers, and OPTIONS preflight is answered', async (t) => {
    const app = await testApp(t)
    assert.equal((await app.inject('/discovery/')).statusCode, 200)
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/tools/tickets_get_ticket',
      headers: {
        origin: 'https://debugger.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], '*')
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/)
  })
})

describe('POST /tools/:name through the example upstream', () => {
  test("Opal's wrapped body and a debugger's flat body both work; /discovery/tools/:name too", async (t) => {
    const { app } = await exampleApp(t)
    const wrapped = await app.inject({
      method: 'POST',
      url: '/tools/tickets_get_ticket',
      payload: {
        parameters: { ticketId: 'T-1001' },
        environment: { execution_mode: 'headless' },
        chat_metadata: { thread_id: 'x' },
      },
    })
    assert.equal(wrapped.statusCode, 200, wrapped.body)
    assert.equal(wrapped.json().id, 'T-1001')
    const flat = await app.inject({
      method: 'POST',
      url: '/discovery/tools/tickets_get_ticket',
      payload: { ticketId: 'T-1002' },
    })
    assert.equal(flat.json().id, 'T-1002')
    const byId = await app.inject({
      method: 'POST',
      url: `/tools/${encodeURIComponent('tickets:getTicket')}`,
      payload: { ticketId: 'T-1003' },
    })
    assert.equal(byId.json().id, 'T-1003')
  })

  test('201 with Location, 204, binary as base64, upstream 404 passed through', async (t) => {
    const { app } = await exampleApp(t)
    const created = await app.inject({
      method: 'POST',
      url: '/tools/tickets_create_ticket',
      payload: {
        title: 'Printer on fire',
        description: 'It is on fire.',
        priority: 'urgent',
        customer: { email: 'a@example.com', name: 'A' },
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    assert.match(String(created.headers.location), /\/tickets\/T-\d+/)
    const id = created.json().id
    const upload = await app.inject({
      method: 'POST',
      url: '/tools/tickets_upload_attachment',
      payload: { ticketId: id, file: Buffer.from('%PDF-1.7 bytes').toString('base64'), note: 'scan' },
    })
    assert.equal(upload.statusCode, 201, upload.body)
    const download = await app.inject({
      method: 'POST',
      url: '/tools/tickets_download_attachment',
      payload: { ticketId: id, attachmentId: upload.json().id },
    })
    assert.equal(download.statusCode, 200)
    assert.equal(Buffer.from(download.json().data, 'base64').toString(), '%PDF-1.7 bytes')
    assert.equal(download.json().encoding, 'base64')
    const deleted = await app.inject({
      method: 'POST',
      url: '/tools/tickets_delete_ticket',
      headers: { 'x-toolgate-approval': 'tickets_delete_ticket' },
      payload: { ticketId: id },
    })
    assert.equal(deleted.statusCode, 204)
    const gone = await app.inject({
      method: 'POST',
      url: '/tools/tickets_get_ticket',
      payload: { ticketId: id },
    })
    assert.equal(gone.statusCode, 404)
    assert.equal(gone.json().error, 'not_found')
  })

  test('bad calls: unknown tool 404, non-object body 400, malformed JSON 400, approval 403 — all JSON errors', async (t) => {
    const { app } = await exampleApp(t)
    const unknown = await app.inject({ method: 'POST', url: '/tools/nope', payload: {} })
    assert.deepEqual([unknown.statusCode, unknown.json().code], [404, 'TG_ERR_TOOL_NOT_FOUND'])
    const list = await app.inject({ method: 'POST', url: '/tools/tickets_get_ticket', payload: [1, 2] })
    assert.deepEqual([list.statusCode, list.json().code], [400, 'TG_ERR_TOOL_BODY_INVALID'])
    const malformed = await app.inject({
      method: 'POST',
      url: '/tools/tickets_get_ticket',
      headers: { 'content-type': 'application/json' },
      payload: '{"ticketId":',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().error, /JSON/)
    assert.doesNotMatch(malformed.body, /at .*\.js/)
    const approval = await app.inject({
      method: 'POST',
      url: '/tools/tickets_delete_ticket',
      payload: { ticketId: 'T-1001' },
    })
    assert.deepEqual([approval.statusCode, approval.json().code], [403, 'TG_ERR_TOOL_APPROVAL_REQUIRED'])
  })
})
