import { Deserializer, deserialize, Serializer, serialize } from 'node:v8'
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'
import type { Catalog, LastGoodSources, LoadedSource } from '../catalog/index.js'
import { type RenderedViews, ServedDocument } from '../formats/index.js'
import { deepFreeze } from '../util/deep-freeze.js'
import type { VersionFingerprint } from './build-version.js'

// How a build crosses from the build process to the gateway. Everything is bytes: the build
// process pays for serializing, and the main thread turns the catalog back into objects a slice at
// a time, yielding to the event loop between slices, so no single step of the swap stalls a request.

/**
 * A catalog as one V8 serialization (node:v8's Serializer), written as a sequence of values: the
 * members but tools and problems, then those two in slices of SLICE_ITEMS. One serializer writes
 * them all, so an object the build's catalog shares (the same bundled schema in a hundred tools)
 * is written once and comes back as one object however many slices reference it; JSON made a copy
 * per occurrence (Kubernetes' 1,002 tools: 44 MB of JSON and 40 MB of decoded heap, against 7.8 MB
 * serialized and 11 MB decoded). The main thread reads it back a slice per turn of the event loop.
 */
export interface CatalogBytes {
  readonly bytes: Uint8Array
  /** How many values follow the head: tool slices, then problem slices. */
  readonly toolSlices: number
  readonly problemSlices: number
}

export interface DocumentBytes {
  readonly format: string
  readonly view: string
  readonly body: Uint8Array
  readonly etag: string
}

/** What the gateway keeps between builds, opaque to it, and hands to the next build process. */
export interface BuilderMemory {
  /** Each last good source, v8-serialized and compressed; the build opens only those it needs. */
  readonly lastGood: ReadonlyMap<string, Uint8Array>
  readonly fingerprint?: {
    readonly version: string
    readonly reportsHash: string
    /** `[id, hash][]` as JSON. */
    readonly toolHashes: Uint8Array
  }
}

/** Tools (or problems) per slice: deserializing 64 Kubernetes tools takes ~2 ms. */
const SLICE_ITEMS = 64
const encoder = new TextEncoder()
const decoder = new TextDecoder()

export function encodeCatalog(catalog: Catalog): CatalogBytes {
  const { tools, problems, ...head } = catalog
  const serializer = new Serializer()
  serializer.writeHeader()
  serializer.writeValue(head)
  const toolSlices = writeSlices(serializer, tools)
  const problemSlices = writeSlices(serializer, problems)
  return { bytes: serializer.releaseBuffer(), toolSlices, problemSlices }
}

function writeSlices(serializer: Serializer, items: readonly unknown[]): number {
  let count = 0
  for (let start = 0; start < items.length; start += SLICE_ITEMS, count++)
    serializer.writeValue(items.slice(start, start + SLICE_ITEMS))
  return count
}

/** Rebuilds the frozen catalog, one slice per turn of the event loop. */
export async function decodeCatalog(encoded: CatalogBytes): Promise<Catalog> {
  const { bytes } = encoded
  const deserializer = new Deserializer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  deserializer.readHeader()
  // V8's serializer writes a string at each of its occurrences (objects once): every copy of a
  // description Kubernetes repeats 770 times came back as its own string until made one here.
  const strings = new Map<string, string>()
  const head = deepFreeze(deserializer.readValue(), strings) as Omit<Catalog, 'tools' | 'problems'>
  const tools = await readSlices(deserializer, encoded.toolSlices, strings)
  const problems = await readSlices(deserializer, encoded.problemSlices, strings)
  // Members in buildCatalog's order: /catalog serializes them as they stand.
  return Object.freeze({
    version: head.version,
    services: head.services,
    tools: Object.freeze(tools),
    // A serialized object comes back with Object.prototype; a caller's ?profile=__proto__ must find no view.
    views: Object.freeze(Object.assign(Object.create(null), head.views)),
    workflows: head.workflows,
    sources: head.sources,
    problems: Object.freeze(problems),
  }) as Catalog
}

async function readSlices<T>(
  deserializer: Deserializer,
  count: number,
  strings: Map<string, string>,
): Promise<T[]> {
  const items: T[] = []
  for (let i = 0; i < count; i++) {
    await nextTurn()
    // Objects shared with an earlier slice are frozen and interned already: the walk stops at them.
    // Interned per slice, so no step of the swap is longer than a slice.
    for (const item of deepFreeze(deserializer.readValue() as T[], strings)) items.push(item)
  }
  return items
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export function encodeViews(views: RenderedViews): {
  sizes: RenderedViews['sizes']
  documents: DocumentBytes[]
} {
  return {
    sizes: views.sizes,
    documents: views.eager.map(({ format, view, document }) => ({
      format,
      view,
      body: document.body,
      etag: document.etag,
    })),
  }
}

export function decodeViews(encoded: { sizes: RenderedViews['sizes']; documents: readonly DocumentBytes[] }) {
  return {
    sizes: encoded.sizes,
    eager: encoded.documents.map(({ format, view, body, etag }) => ({
      format,
      view,
      document: new ServedDocument(undefined, undefined, {
        body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        etag,
      }),
    })),
  } satisfies RenderedViews
}

/** The last good sources as the build sees them: each deserialized on its first lookup. */
export function lazyLastGood(serialized: ReadonlyMap<string, Uint8Array>): LastGoodSources & {
  readonly bytesOf: (source: LoadedSource) => Uint8Array | undefined
} {
  const opened = new Map<string, LoadedSource>()
  const origin = new WeakMap<LoadedSource, Uint8Array>()
  return {
    has: (id) => serialized.has(id),
    get(id) {
      let source = opened.get(id)
      const bytes = serialized.get(id)
      if (!source && bytes) {
        source = deserialize(brotliDecompressSync(bytes)) as LoadedSource
        opened.set(id, source)
        origin.set(source, bytes)
      }
      return source
    },
    bytesOf: (source) => origin.get(source),
  }
}

/**
 * The sources to remember, serialized and compressed once; a kept source reuses the bytes it came
 * from. The gateway holds them for the life of the version (issue 20, row 6): Kubernetes' spec
 * is 3.43 MB serialized, 180 KB at brotli's quality 1, which costs the build ≈ 3.5 ms to write and
 * ≈ 4 ms to open, against ≈ 30–85 ms to deserialize either way.
 */
export function serializeLastGood(
  sources: ReadonlyMap<string, LoadedSource>,
  bytesOf: (source: LoadedSource) => Uint8Array | undefined,
): Map<string, Uint8Array> {
  return new Map([...sources].map(([id, source]) => [id, bytesOf(source) ?? compressed(serialize(source))]))
}

function compressed(bytes: Uint8Array): Uint8Array {
  return brotliCompressSync(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength },
  })
}

export function encodeFingerprint(
  fingerprint: VersionFingerprint,
): NonNullable<BuilderMemory['fingerprint']> {
  return {
    version: fingerprint.version,
    reportsHash: fingerprint.reportsHash,
    toolHashes: encoder.encode(JSON.stringify([...fingerprint.toolHashes])),
  }
}

export function decodeFingerprint(encoded: NonNullable<BuilderMemory['fingerprint']>): VersionFingerprint {
  const toolHashes = new Map<string, string>(JSON.parse(decoder.decode(encoded.toolHashes)))
  return { version: encoded.version, reportsHash: encoded.reportsHash, toolHashes }
}

/** What the gateway sends a build process that answered with views, when it may count their tokens. */
export const COUNT_TOKENS = 'count-tokens'
