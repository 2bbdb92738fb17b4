import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { promisify } from 'node:util'
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createBrotliDecompress,
  createGzip,
  gzip,
  gzipSync,
} from 'node:zlib'
import { keepWhenSettled } from '../util/memo.js'

export type ContentEncoding = 'br' | 'gzip'

/** A document's bytes in one encoding: ready, or still being compressed off the event loop. */
export type EncodedBytes = Buffer | Promise<Buffer>

/** What sendDocument serves: a document's ETag and type, its plain form and its encodings. */
export interface Servable {
  /** Strong ETag: a hash of the exact plain bytes. */
  readonly etag: string
  readonly contentType: string
  /** The encodings it sends as such, best first; any other request gets the plain form. */
  readonly encodings: readonly ContentEncoding[]
  /** The plain bytes, or a stream of them for a document kept only compressed. */
  plain(): Buffer | Readable
  encoded(encoding: ContentEncoding): EncodedBytes
}

/**
 * Documents up to this size are compressed on the event loop when first asked for (brotli's
 * quality 9 of 256 KB: ≈ 3 ms); larger ones on libuv's threadpool. Kubernetes' /openai.json
 * (14.8 MB) took the event loop 160 ms at brotli 9 and 230 ms at gzip 9, /catalog (44 MB) 467 and
 * 686 ms: every request in flight waited that long, once per document and encoding and version.
 */
const INLINE_COMPRESSION_BYTES = 256 * 1024

const BROTLI_QUALITY = 9
const GZIP_LEVEL = 9
const brotliAsync = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

const brotliOptions = (size: number) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: size },
})

/** A strong ETag of bytes given whole or in chunks. */
function etagOf(...parts: readonly Buffer[]): string {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part)
  return `"${hash.digest('base64url').slice(0, 27)}"`
}

/**
 * A document served as bytes (SPEC §2): serialized and hashed once per catalog version, each
 * compressed variant made once, on first demand. No per-request serialization or compression.
 */
export class ServedDocument implements Servable {
  readonly body: Buffer
  readonly etag: string
  readonly encodings: readonly ContentEncoding[] = ['br', 'gzip']
  readonly #encoded = new Map<ContentEncoding, EncodedBytes>()

  /**
   * `rendered`: bytes (and their ETag) made elsewhere for this value — by the build process, or read
   * from a file — so `value` is unused; an ETag not given is hashed here.
   */
  constructor(
    value: unknown,
    readonly contentType = 'application/json; charset=utf-8',
    rendered?: { readonly body: Buffer; readonly etag?: string },
  ) {
    this.body = rendered?.body ?? jsonBytes(value)
    this.etag = rendered?.etag ?? etagOf(this.body)
  }

  plain(): Buffer {
    return this.body
  }

  /** The compressed bytes; for a large document, a promise the first requests share until they are made. */
  encoded(encoding: ContentEncoding): EncodedBytes {
    const kept = this.#encoded.get(encoding)
    if (kept) return kept
    if (this.body.length <= INLINE_COMPRESSION_BYTES) {
      const bytes =
        encoding === 'br'
          ? brotliCompressSync(this.body, brotliOptions(this.body.length))
          : gzipSync(this.body, { level: GZIP_LEVEL })
      this.#encoded.set(encoding, bytes)
      return bytes
    }
    return keepWhenSettled(
      encoding === 'br'
        ? brotliAsync(this.body, brotliOptions(this.body.length))
        : gzipAsync(this.body, { level: GZIP_LEVEL }),
      (kept) => (kept ? this.#encoded.set(encoding, kept) : this.#encoded.delete(encoding)),
    )
  }
}

/**
 * Brotli's quality for a document kept only compressed: Kubernetes' /catalog (44 MB) is 0.28 MB at
 * quality 5 in 187 ms of a threadpool thread, 0.24 MB at 9 in 467 ms; either inflates in ≈ 43 ms.
 */
const KEPT_BROTLI_QUALITY = 5

/**
 * A large, rarely requested document kept only compressed (GET /catalog: 44 MB plain for
 * Kubernetes' 1,002 tools, 0.28 MB of brotli, per catalog version). A client that accepts br gets
 * the brotli bytes; one that accepts gzip, gzip bytes made from them on its first request, off the
 * event loop, and kept (4.7 MB for that catalog); any other, the plain bytes streamed out of a
 * decompressor as its socket takes them.
 */
export class CompressedDocument implements Servable {
  readonly encodings: readonly ContentEncoding[] = ['br', 'gzip']
  #gzip: EncodedBytes | undefined

  private constructor(
    readonly etag: string,
    readonly contentType: string,
    readonly brotli: Buffer,
    /** The plain form's length. */
    readonly bytes: number,
  ) {}

  /**
   * Renders `value` a member at a time into chunks (jsonChunks), hashes them, and compresses them
   * on the threadpool; the plain bytes are garbage once it resolves.
   */
  static async of(
    value: unknown,
    contentType = 'application/json; charset=utf-8',
  ): Promise<CompressedDocument> {
    const { chunks, bytes } = jsonChunks(value)
    const compressor = createBrotliCompress({
      params: {
        [constants.BROTLI_PARAM_QUALITY]: KEPT_BROTLI_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes,
      },
    })
    const brotli = buffer(compressor)
    for (const chunk of chunks) compressor.write(chunk)
    compressor.end()
    return new CompressedDocument(etagOf(...chunks), contentType, await brotli, bytes)
  }

  plain(): Readable {
    const decompressor = createBrotliDecompress()
    decompressor.end(this.brotli)
    return decompressor
  }

  encoded(encoding: ContentEncoding): EncodedBytes {
    if (encoding === 'br') return this.brotli
    return (
      this.#gzip ??
      keepWhenSettled(buffer(this.plain().pipe(createGzip({ level: GZIP_LEVEL }))), (kept) => {
        this.#gzip = kept
      })
    )
  }
}

/** Bytes of one chunk JsonChunks writes into (a text longer than that gets a chunk of its own). */
const CHUNK_BYTES = 1024 * 1024

/**
 * The first chunk of a document (jsonBytes: a manifest, a tool page, a per-service document),
 * doubling up to CHUNK_BYTES: most of them are a few KB, and each would otherwise map and unmap a
 * whole 1 MB chunk.
 */
const FIRST_CHUNK_BYTES = 16 * 1024

/**
 * How deep jsonChunks splits a document into separately serialized members. Two levels reach a
 * format's tools, but a deferred format's tools are three levels down (namespaces, then tools):
 * there each namespace was one string of megabytes, in V8's large-object space (Kubernetes'
 * openai-deferred-strict: heap used 83 → 158 MB while written at 2 levels, 82 → 93 at 4).
 */
const CHUNKED_DEPTH = 4

/** A document's UTF-8 bytes as JsonChunks wrote them: consecutive chunks, never one string. */
export interface JsonChunks {
  readonly chunks: readonly Buffer[]
  readonly bytes: number
}

/**
 * `Buffer.from(JSON.stringify(value))`, the same bytes, without the document ever being one
 * string: the members of the value CHUNKED_DEPTH levels down (a catalog's tools, a format's tools)
 * are serialized one by one and each small string written straight into 1 MB chunks. GET /catalog for
 * Kubernetes' 1,002 tools is 42 MB; as one string (and V8's intermediate copies while it is built
 * and flattened) it cost the main thread a transient 100 MB more, on top of the bytes kept.
 */
export function jsonBytes(value: unknown): Buffer {
  return joinChunks(jsonChunks(value))
}

/** The chunks one after the other, in one buffer of exactly their length (not Node's shared pool). */
export function joinChunks({ chunks, bytes }: JsonChunks): Buffer {
  const joined = Buffer.allocUnsafeSlow(bytes)
  let offset = 0
  for (const chunk of chunks) offset += chunk.copy(joined, offset)
  return joined
}

/**
 * `JSON.stringify(value)` as UTF-8 bytes in chunks (what jsonBytes joins). The Kubernetes worker
 * rendered its formats as 256 K-character strings joined from each member's string, then encoded
 * and concatenated them: the joined strings and the large members' strings sat in V8's
 * large-object space, which only a full collection frees (a 16.5 MB format left ~75 MB of garbage
 * there). Here each member's string dies young, and the bytes are outside the heap, in chunks
 * freed with their buffers.
 */
export function jsonChunks(value: unknown): JsonChunks {
  const chunks: Buffer[] = []
  let size = FIRST_CHUNK_BYTES
  const take = (needed: number) => {
    const fresh = Buffer.allocUnsafeSlow(Math.max(size, needed))
    size = Math.min(size * 2, CHUNK_BYTES)
    return fresh
  }
  let chunk = take(0)
  let used = 0
  let bytes = 0
  const write = (text: string) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text that may not fit is measured.
    if (text.length * 3 > chunk.length - used) {
      const needed = Buffer.byteLength(text)
      if (needed > chunk.length - used) {
        if (used > 0) chunks.push(chunk.subarray(0, used))
        chunk = take(needed)
        used = 0
      }
    }
    const written = chunk.write(text, used)
    used += written
    bytes += written
  }
  walkJson(value, write)
  if (used > 0) chunks.push(chunk.subarray(0, used))
  return { chunks, bytes }
}

/**
 * The length of `JSON.stringify(value)` in UTF-8 bytes and in UTF-16 units, written nowhere: a
 * format only measured (renderEager) is never bytes at all, and an eager one is written once into
 * a buffer of its size (jsonBuffer).
 */
export function measureJson(value: unknown): { readonly bytes: number; readonly chars: number } {
  let bytes = 0
  let chars = 0
  walkJson(value, (text) => {
    bytes += Buffer.byteLength(text)
    chars += text.length
  })
  return { bytes, chars }
}

/**
 * `JSON.stringify(value)` as UTF-8 bytes in one buffer of exactly `bytes` (measureJson's), written
 * text by text: no chunks, no copy joining them (renderEager's eager documents). `read` sees each
 * text as it is written.
 */
export function jsonBuffer(value: unknown, bytes: number, read?: (text: string) => void): Buffer {
  const buffer = Buffer.allocUnsafeSlow(bytes)
  let used = 0
  const wrong = () => new Error(`jsonBuffer: the document is not the ${bytes} bytes it was measured at`)
  walkJson(value, (text) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only a text that may not fit is measured.
    if (text.length * 3 > bytes - used && Buffer.byteLength(text) > bytes - used) throw wrong()
    used += buffer.write(text, used)
    read?.(text)
  })
  if (used !== bytes) throw wrong()
  return buffer
}

/** `JSON.stringify(value)` text by text, as jsonChunks writes it (a member CHUNKED_DEPTH levels down is one text). */
export function walkJson(value: unknown, read: (text: string) => void): void {
  writeValue(value, CHUNKED_DEPTH, read)
}

/** Serializes `value` as JSON.stringify does, splitting plain arrays and objects `depth` levels down. */
function writeValue(value: unknown, depth: number, write: (text: string) => void): void {
  if (depth === 0 || !isSplittable(value)) {
    write(JSON.stringify(value))
    return
  }
  if (Array.isArray(value)) {
    write('[')
    for (let i = 0; i < value.length; i++) {
      if (i > 0) write(',')
      const item: unknown = value[i]
      // JSON.stringify writes null for an array item it cannot serialize.
      if (serializable(item)) writeValue(item, depth - 1, write)
      else write('null')
    }
    write(']')
    return
  }
  write('{')
  let first = true
  for (const [key, member] of Object.entries(value)) {
    if (!serializable(member)) continue // JSON.stringify leaves such members out
    write(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`)
    first = false
    writeValue(member, depth - 1, write)
  }
  write('}')
}

/** A plain array or object without toJSON: what writeValue splits; anything else goes to JSON.stringify whole. */
function isSplittable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  if (Array.isArray(value)) return true
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function serializable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'
}
