// Issue 17 class 6: a multipart, form or raw body whose schema declares no properties still
// carries what the caller sent (Jira's attachment upload reached the upstream as an empty
// multipart body). Checked at a real upstream, part by part and byte for byte.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { Catalog } from '../../src/catalog/index.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'
import { type Received, startUpstream } from '../helpers/upstreams.js'

function uploadSpec(content: Record<string, unknown>) {
  return openapi({
    '/issue/{key}/attachments': {
      post: {
        operationId: 'addAttachment',
        parameters: [{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content },
        responses: ok,
      },
    },
  })
}

/** Jira's attachment upload, as published: an array of Spring's MultipartFile, no encoding. */
const JIRA_CONTENT = {
  'multipart/form-data': {
    schema: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          bytes: { type: 'array', items: { type: 'string', format: 'byte' } },
          contentType: { type: 'string' },
          name: { type: 'string' },
          size: { type: 'integer' },
        },
      },
    },
  },
}

/** The parts of a received multipart body, parsed by the platform's own parser. */
async function partsOf(received: Received): Promise<[string, File | string][]> {
  const request = new Request('http://upstream/', {
    method: 'POST',
    headers: { 'content-type': String(received.headers['content-type']) },
    body: received.body,
  })
  return [...(await request.formData()).entries()]
}

async function bytesOf(part: File | string): Promise<Buffer> {
  assert.ok(typeof part !== 'string', 'the part is a file')
  return Buffer.from(await part.arrayBuffer())
}

async function callOnce(
  t: Parameters<typeof startUpstream>[0],
  catalog: Catalog,
  args: Record<string, unknown>,
) {
  const upstream = await startUpstream(t)
  const { call } = executorFor(t, catalog, { services: { jira: { upstream: upstream.url } } })
  const outcome = await call('jira:addAttachment', args)
  assert.equal(outcome.status, 200, JSON.stringify(outcome))
  return upstream.received[0]!
}

describe('bodies that declare no parts still carry what the caller sent (issue 17 class 6)', () => {
  test("Jira's attachment upload: a file argument, sent as the part `file`, one part per file", async (t) => {
    const catalog = await catalogOf({ 'jira.json': uploadSpec(JIRA_CONTENT) })
    const tool = toolById(catalog, 'jira:addAttachment')
    assert.deepEqual(tool.binding.arguments.file, { in: 'body', name: 'file' })
    const file = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).file!
    assert.equal(file.type, 'array')
    assert.deepEqual(file.items, {
      type: 'string',
      contentEncoding: 'base64',
      description: '(file content, base64-encoded)',
    })
    assert.match(String(file.description), /part "file", once per item/)
    assert.deepEqual(tool.inputSchema.required, ['key', 'file'])
    const [problem] = problemsOf(catalog, 'body-parts-undeclared')
    assert.equal(
      problem?.pointer,
      '/paths/~1issue~1{key}~1attachments/post/requestBody/content/multipart~1form-data/schema',
    )
    const one = Buffer.from('%PDF-1.7 first\n')
    const two = Buffer.from([0, 1, 2, 255, 254, 13, 10])
    const received = await callOnce(t, catalog, {
      key: 'PROJ-1',
      file: [one.toString('base64'), two.toString('base64')],
    })
    assert.equal(received.target, '/issue/PROJ-1/attachments')
    const parts = await partsOf(received)
    assert.deepEqual(
      parts.map(([name]) => name),
      ['file', 'file'],
    )
    assert.deepEqual(await bytesOf(parts[0]![1]), one)
    assert.deepEqual(await bytesOf(parts[1]![1]), two)
  })

  test('the encoding map names the parts: its keys are the arguments, each with its declared content type', async (t) => {
    const catalog = await catalogOf({
      'jira.json': uploadSpec({
        'multipart/form-data': {
          schema: {},
          encoding: { upload: { contentType: 'image/png' }, meta: { contentType: 'application/json' } },
        },
      }),
    })
    const tool = toolById(catalog, 'jira:addAttachment')
    const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>
    assert.equal(properties.upload?.contentEncoding, 'base64')
    assert.equal(properties.meta?.type, 'string')
    assert.equal(properties.meta?.contentEncoding, undefined)
    const png = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])
    const received = await callOnce(t, catalog, { key: 'K', upload: png.toString('base64'), meta: '{"a":1}' })
    const parts = new Map(await partsOf(received))
    const upload = parts.get('upload') as File
    assert.equal(upload.type, 'image/png')
    assert.deepEqual(await bytesOf(upload), png)
    const meta = parts.get('meta') as File
    assert.equal(meta.type, 'application/json')
    assert.equal(await meta.text(), '{"a":1}')
  })

  test('property: any bytes, sent as the one implied part of an empty multipart schema, arrive exactly', async (t) => {
    const catalog = await catalogOf({ 'jira.json': uploadSpec({ 'multipart/form-data': { schema: {} } }) })
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, catalog, { services: { jira: { upstream: upstream.url } } })
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), async (bytes) => {
        const outcome = await call('jira:addAttachment', {
          key: 'K',
          file: Buffer.from(bytes).toString('base64'),
        })
        assert.equal(outcome.status, 200, JSON.stringify(outcome))
        const parts = await partsOf(upstream.received.at(-1)!)
        assert.equal(parts.length, 1)
        assert.equal(parts[0]![0], 'file')
        assert.deepEqual(await bytesOf(parts[0]![1]), Buffer.from(bytes))
      }),
      { numRuns: 40 },
    )
  })

  test('a form body that declares no fields takes an object of fields; a raw body takes base64 bytes', async (t) => {
    const form = await catalogOf({
      'jira.json': uploadSpec({ 'application/x-www-form-urlencoded': { schema: {} } }),
    })
    const fields = (
      toolById(form, 'jira:addAttachment').inputSchema.properties as Record<string, Record<string, unknown>>
    ).body!
    assert.equal(fields.type, 'object')
    assert.match(String(fields.description), /Form fields/)
    assert.equal(problemsOf(form, 'body-parts-undeclared').length, 1)
    const sent = await callOnce(t, form, { key: 'K', body: { to: 'a b', n: 2 } })
    assert.equal(sent.body.toString(), 'to=a%20b&n=2')
    const raw = await catalogOf({
      'jira.json': uploadSpec({ 'application/octet-stream': { schema: {} } }),
    })
    const bytes = Buffer.from([0, 159, 146, 150])
    const received = await callOnce(t, raw, { key: 'K', body: bytes.toString('base64') })
    assert.equal(received.headers['content-type'], 'application/octet-stream')
    assert.deepEqual(received.body, bytes)
  })
})
