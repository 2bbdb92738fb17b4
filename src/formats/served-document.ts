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
    this.body = rendered?.body ?? jsonBytes(value)
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

/** Characters of serialized JSON gathered before they are encoded into one part of the bytes. */
const PART_CHARS = 256 * 1024

/**
 * `Buffer.from(JSON.stringify(value))`, the same bytes, without the document ever being one
 * string: the members of the value and of its arrays and objects one level down (a catalog's
 * tools) are serialized one by one and encoded a part at a time. GET /catalog for Kubernetes'
 * 1,002 tools is 42 MB; as one string (and V8's intermediate copies while it is built and
 * flattened) it cost the main thread a transient 100 MB more, on top of the bytes kept.
 */
export function jsonBytes(value: unknown): Buffer {
  return textBytes(jsonTexts(value))
}

/** The UTF-8 bytes of texts one after the other (jsonTexts' parts), encoded a part at a time. */
export function textBytes(texts: readonly string[]): Buffer {
  const parts = texts.map((text) => Buffer.from(text))
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

/**
 * `JSON.stringify(value)` as consecutive parts of about PART_CHARS characters each (what jsonBytes
 * encodes), never joined: the build worker measures the formats it does not keep (the MCP list:
 * 24.7 MB for Kubernetes) without their text ever being one string.
 */
export function jsonTexts(value: unknown): string[] {
  if (!isSplittable(value)) return [JSON.stringify(value)]
  const parts: string[] = []
  let pending: string[] = []
  let chars = 0
  const write = (text: string) => {
    pending.push(text)
    chars += text.length
    if (chars < PART_CHARS) return
    parts.push(pending.join(''))
    pending = []
    chars = 0
  }
  writeValue(value, 2, write)
  parts.push(pending.join(''))
  return parts
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
