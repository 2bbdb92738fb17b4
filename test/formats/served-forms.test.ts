import assert from 'node:assert/strict'
import { text } from 'node:stream/consumers'
import { describe, test } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import fc from 'fast-check'
import Fastify from 'fastify'
import { chooseEncoding, sendDocument } from '../../plugins/send-document.js'
import { CompressedDocument, type Servable, ServedDocument } from '../../src/formats/served-document.js'
import { stringifiable } from '../helpers/json-values.js'

/** A document of about `bytes` bytes, varied enough that brotli does not make it vanish. */
const documentOf = (bytes: number) => ({
  tools: Array.from({ length: Math.ceil(bytes / 120) }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool ${i} of ${bytes}: ${(i * 2654435761) % 1000003}`,
  })),
})

describe('ServedDocument: compressed forms made once, off the event loop when large', () => {
  test('a large document’s br and gzip are promises the first requests share, then the bytes', async () => {
    const document = new ServedDocument(documentOf(600_000))
    assert.ok(document.body.length > 256 * 1024)
    for (const [encoding, inflate] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const first = document.encoded(encoding)
      assert.ok(first instanceof Promise, `${encoding}: compressed on the event loop`)
      assert.equal(document.encoded(encoding), first, `${encoding}: a second request made it again`)
      const bytes = await first
      assert.ok(inflate(bytes).equals(document.body))
      assert.equal(document.encoded(encoding), bytes, `${encoding}: not kept once made`)
    }
  })

  test('a small document’s forms are made at once', () => {
    const document = new ServedDocument(documentOf(10_000))
    const bytes = document.encoded('br')
    assert.ok(Buffer.isBuffer(bytes))
    assert.ok(brotliDecompressSync(bytes).equals(document.body))
  })
})

describe('CompressedDocument: kept only compressed', () => {
  test('plain stream, br and gzip bytes and ETag are those of the same value served whole, for any value', async () => {
    await fc.assert(
      fc.asyncProperty(stringifiable, async (value) => {
        if (JSON.stringify(value) === undefined) return
        const whole = new ServedDocument(value)
        const kept = await CompressedDocument.of(value)
        assert.equal(kept.etag, whole.etag)
        assert.equal(kept.bytes, whole.body.length)
        assert.equal(await text(kept.plain()), whole.body.toString())
        assert.ok(brotliDecompressSync(kept.brotli).equals(whole.body))
        assert.ok(gunzipSync(await kept.encoded('gzip')).equals(whole.body))
      }),
      { numRuns: 200 },
    )
  })

  test('each plain request gets its own stream; gzip is made once, on its first request', async () => {
    const kept = await CompressedDocument.of(documentOf(2_000_000))
    assert.ok(kept.brotli.length < kept.bytes / 4)
    assert.equal(kept.encoded('br'), kept.brotli)
    const gzip = kept.encoded('gzip')
    assert.ok(gzip instanceof Promise)
    assert.equal(kept.encoded('gzip'), gzip, 'a second request made it again')
    const bytes = await gzip
    assert.equal(kept.encoded('gzip'), bytes, 'not kept once made')
    const [a, b] = [kept.plain(), kept.plain()]
    assert.notEqual(a, b)
    assert.equal((await text(a)).length, kept.bytes)
    assert.equal((await text(b)).length, kept.bytes)
  })
})

describe('sendDocument over each form', () => {
  async function appServing(document: Servable) {
    const app = Fastify()
    app.get('/doc', (request, reply) => sendDocument(request, reply, document))
    await app.ready()
    return app
  }

  for (const [name, make] of [
    ['a large ServedDocument', async (value: unknown) => new ServedDocument(value)],
    ['a CompressedDocument', (value: unknown) => CompressedDocument.of(value)],
  ] as const)
    test(`${name}: 304, br, gzip and identity answer the same document`, async (t) => {
      const value = documentOf(600_000)
      const plain = JSON.stringify(value)
      const document = await make(value)
      const app = await appServing(document)
      t.after(() => app.close())
      const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/doc', headers })

      const notModified = await get({ 'if-none-match': document.etag })
      assert.equal(notModified.statusCode, 304)
      assert.equal(notModified.headers.etag, document.etag)

      const br = await get({ 'accept-encoding': 'gzip, br' })
      assert.equal(br.headers['content-encoding'], 'br')
      assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain)

      const gzip = await get({ 'accept-encoding': 'gzip' })
      assert.equal(gzip.headers['content-encoding'], 'gzip')
      assert.equal(gunzipSync(gzip.rawPayload).toString(), plain)

      const identity = await get({})
      assert.equal(identity.statusCode, 200)
      assert.equal(identity.headers['content-encoding'], undefined)
      assert.equal(identity.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(identity.headers.etag, document.etag)
      assert.equal(identity.body, plain)
    })
})

test('chooseEncoding picks among the encodings a document offers', () => {
  assert.equal(chooseEncoding('gzip, br'), 'br')
  assert.equal(chooseEncoding('gzip, br', ['br']), 'br')
  assert.equal(chooseEncoding('gzip', ['br']), undefined)
  assert.equal(chooseEncoding('br;q=0, gzip', ['br']), undefined)
  assert.equal(chooseEncoding('*', ['br']), 'br')
  assert.equal(chooseEncoding(undefined, ['br']), undefined)
})
