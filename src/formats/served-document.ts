import { createHash } from 'node:crypto'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

export type ContentEncoding = 'br' | 'gzip'

/**
 * A document served as bytes (SPEC §2): serialized and hashed once per catalog version, each
 * compressed variant made once, on first demand. No per-request serialization or compression.
 */
export class ServedDocument {
  readonly body: Buffer
  /** Strong ETag: a hash of the exact bytes. */
  readonly etag: string
  readonly #encoded = new Map<ContentEncoding, Buffer>()

  /**
   * `rendered`: bytes (and their ETag) made elsewhere for this value — by the build worker, or read
   * from a file — so `value` is unused; an ETag not given is hashed here.
   */
  constructor(
    value: unknown,
    readonly contentType = 'application/json; charset=utf-8',
    rendered?: { readonly body: Buffer; readonly etag?: string },
  ) {
    this.body = rendered?.body ?? Buffer.from(JSON.stringify(value))
    this.etag =
      rendered?.etag ?? `"${createHash('sha256').update(this.body).digest('base64url').slice(0, 27)}"`
  }

  encoded(encoding: ContentEncoding): Buffer {
    let bytes = this.#encoded.get(encoding)
    if (!bytes) {
      bytes =
        encoding === 'br'
          ? brotliCompressSync(this.body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 9,
                [constants.BROTLI_PARAM_SIZE_HINT]: this.body.length,
              },
            })
          : gzipSync(this.body, { level: 9 })
      this.#encoded.set(encoding, bytes)
    }
    return bytes
  }
}
