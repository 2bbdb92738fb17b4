import { deserialize, serialize } from 'node:v8'
import type { Catalog, LastGoodSources, LoadedSource } from '../catalog/index.js'
import { type RenderedViews, ServedDocument } from '../formats/index.js'
import { deepFreeze } from '../util/deep-freeze.js'
import type { VersionFingerprint } from './build-version.js'
import type { RemoteState } from './remote-sources.js'

// How a build crosses from the worker to the main thread. Everything is bytes: the worker pays for
// serializing, and the main thread turns the catalog back into objects a slice at a time, yielding
// to the event loop between slices, so no single step of the swap stalls a request.

/** A catalog as JSON slices: the members but tools and problems, then those two in ~1 MB slices. */
export interface CatalogBytes {
  readonly head: Uint8Array
  readonly tools: readonly Uint8Array[]
  readonly problems: readonly Uint8Array[]
}

export interface DocumentBytes {
  readonly format: string
  readonly view: string
  readonly body: Uint8Array
  readonly etag: string
}

/** What the main thread keeps between builds, opaque to it: SharedArrayBuffers cross for free. */
export interface BuilderMemory {
  /** Each last good source, v8-serialized; the worker deserializes only those it needs. */
  readonly lastGood: ReadonlyMap<string, Uint8Array>
  readonly fingerprint?: {
    readonly version: string
    readonly reportsHash: string
    /** `[id, hash][]` as JSON. */
    readonly toolHashes: Uint8Array
  }
}

const SLICE_BYTES = 1_048_576 // JSON.parse of 1 MB takes a few ms
const encoder = new TextEncoder()
const decoder = new TextDecoder()

export function encodeCatalog(catalog: Catalog): CatalogBytes {
  const { tools, problems, ...head } = catalog
  return { head: encoder.encode(JSON.stringify(head)), tools: slices(tools), problems: slices(problems) }
}

function slices(items: readonly unknown[]): Uint8Array[] {
  const out: Uint8Array[] = []
  let batch: string[] = []
  let size = 0
  const flush = () => {
    out.push(encoder.encode(`[${batch.join(',')}]`))
    batch = []
    size = 0
  }
  for (const item of items) {
    const text = JSON.stringify(item)
    batch.push(text)
    size += text.length
    if (size >= SLICE_BYTES) flush()
  }
  if (batch.length > 0) flush()
  return out
}

/** Rebuilds the frozen catalog, one slice per turn of the event loop. */
export async function decodeCatalog(bytes: CatalogBytes): Promise<Catalog> {
  const head = deepFreeze(JSON.parse(decoder.decode(bytes.head))) as Omit<Catalog, 'tools' | 'problems'>
  const tools = await decodeSlices(bytes.tools)
  const problems = await decodeSlices(bytes.problems)
  // Members in buildCatalog's order: /catalog serializes them as they stand.
  return Object.freeze({
    version: head.version,
    services: head.services,
    tools: Object.freeze(tools),
    // JSON.parse gives views Object.prototype back; a caller's ?profile=__proto__ must find no view.
    views: Object.freeze(Object.assign(Object.create(null), head.views)),
    workflows: head.workflows,
    sources: head.sources,
    problems: Object.freeze(problems),
  }) as Catalog
}

async function decodeSlices<T>(slices: readonly Uint8Array[]): Promise<T[]> {
  const items: T[] = []
  for (const slice of slices) {
    await nextTurn()
    for (const item of deepFreeze(JSON.parse(decoder.decode(slice)) as T[])) items.push(item)
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
      body: ownBytes(document.body),
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

/** A Uint8Array that owns its whole ArrayBuffer, so it can be transferred (small Buffers share a pool). */
function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes
    : new Uint8Array(bytes)
}

/** The ArrayBuffers a message can hand over instead of copying. */
export function transferables(...groups: readonly (readonly Uint8Array[])[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>()
  for (const group of groups)
    for (const bytes of group) if (bytes.buffer instanceof ArrayBuffer) buffers.add(bytes.buffer)
  return [...buffers]
}

/** Bytes in shared memory: the main thread keeps them, and hands them to the next worker, uncopied. */
function shared(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(new SharedArrayBuffer(bytes.byteLength))
  copy.set(bytes)
  return copy
}

/** The last good sources as the worker sees them: each deserialized on its first lookup. */
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
        source = deserialize(bytes) as LoadedSource
        opened.set(id, source)
        origin.set(source, bytes)
      }
      return source
    },
    bytesOf: (source) => origin.get(source),
  }
}

/** The sources to remember, serialized once; a kept source reuses the bytes it came from. */
export function serializeLastGood(
  sources: ReadonlyMap<string, LoadedSource>,
  bytesOf: (source: LoadedSource) => Uint8Array | undefined,
): Map<string, Uint8Array> {
  return new Map([...sources].map(([id, source]) => [id, bytesOf(source) ?? shared(serialize(source))]))
}

export function encodeFingerprint(
  fingerprint: VersionFingerprint,
): NonNullable<BuilderMemory['fingerprint']> {
  return {
    version: fingerprint.version,
    reportsHash: fingerprint.reportsHash,
    toolHashes: shared(encoder.encode(JSON.stringify([...fingerprint.toolHashes]))),
  }
}

export function decodeFingerprint(encoded: NonNullable<BuilderMemory['fingerprint']>): VersionFingerprint {
  const toolHashes = new Map<string, string>(JSON.parse(decoder.decode(encoded.toolHashes)))
  return { version: encoded.version, reportsHash: encoded.reportsHash, toolHashes }
}

/** Remote sources as the worker gets them: tokens stay on the main thread (the build never needs one). */
export function remoteWithoutTokens(remote: RemoteState): RemoteState {
  return {
    ...remote,
    remotes: remote.remotes.map(({ source, tools }) => {
      const { token: _token, ...plain } = source
      return { source: plain, tools }
    }),
  }
}
