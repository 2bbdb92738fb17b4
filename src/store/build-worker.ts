// The catalog build worker (issue 14): one per build, so a stalled or runaway build is stopped
// with terminate() and its memory goes back with the thread. It reads the specs directory itself;
// everything else arrives as plain data, and everything it answers is bytes.
import { getHeapStatistics } from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { createFsSourceReader, type SpecReadLimits } from '../catalog/index.js'
import { countTokenSamples, type TokenSizes } from '../formats/index.js'
import { collectAll, releaseMemory } from '../util/collect-garbage.js'
import { buildVersion, type VersionRequest } from './build-version.js'
import {
  type BuilderMemory,
  decodeFingerprint,
  encodeCatalog,
  encodeFingerprint,
  encodeViews,
  lazyLastGood,
  serializeLastGood,
  transferables,
} from './build-wire.js'

export interface WorkerInput {
  readonly request: Omit<VersionRequest, 'previous'>
  readonly memory: BuilderMemory
  readonly read?: SpecReadLimits
}

/**
 * `settle`, what the build's steps call (renderEager: after every 2 M characters rendered): a full
 * collection once the heap holds 16 MB, or a quarter of the live heap, more than the last one left
 * alive. Garbage stays bounded (a Kubernetes reload's peak above idle: 302–338 MB when collecting
 * every 16 M characters, 200–263 MB so), and the marking's cost stays proportional to what is
 * rendered, however large the catalog (a collection every 2 M characters of a 20,000-operation
 * catalog would mark its whole heap each time). 16 MB rather than 32 since formats are written a
 * member at a time: row 6b's peak above the RSS before a reload 189 and 152 MB against 194 and 197
 * (two bench runs each, 6 reloads a run), for a reload 4.2–4.3 s instead of 3.7–3.8 s. Collecting
 * more often (8 or 4 MB, every 1 M characters) did not lower the peak (bench/README.md, twelfth
 * pass): the RSS keeps the heap's high-water in pooled pages, which only `release` gives back.
 * Collected by hand because the worker's heap may grow to limits.buildMemoryMb (2 GB), and V8 sizes
 * its first old-generation collection from that bound: left to itself, a Kubernetes build piled up
 * ~500 MB of garbage (parsed text, each format's rendering) before collecting any, and the
 * gateway's peak RSS was the main thread's plus that.
 */
const heap = (() => {
  let live = 0
  const measured = () => {
    live = getHeapStatistics().used_heap_size
  }
  return {
    settle() {
      if (getHeapStatistics().used_heap_size < live + Math.max(GARBAGE_BYTES, live / 4)) return
      collectAll()
      measured()
    },
    /** releaseMemory, between the formats only measured and the eager documents (renderEager). */
    release() {
      releaseMemory()
      measured()
    },
  }
})()
const GARBAGE_BYTES = 16 * 1024 * 1024 // 16 MB

async function run(input: WorkerInput) {
  const { message, transfer, samples } = await answer(input)
  // The build's catalog, views and parsed specs are garbage once encoded: collected before the
  // answer leaves, so the worker does not hold them while the main thread decodes the answer
  // beside the catalog it serves (the worker's heap used: ~80 MB before, ~20 MB after), with its
  // young generation shrunk and its pooled pages given back.
  releaseMemory()
  parentPort!.postMessage(message, transfer)
  if (samples) {
    // The new version serves already; its token counts follow in a second message (/catalog
    // waits), once the store asks: after its swap, not beside its decode (DeferredTokens).
    await new Promise((resolve) => parentPort!.once('message', resolve))
    const tokens = countTokenSamples(samples)
    parentPort!.postMessage({ tokens } satisfies TokenAnswer)
  }
}

/** Builds and encodes the answer; returns it and what is left to count (nothing else of the build). */
async function answer(input: WorkerInput) {
  const lastGood = lazyLastGood(input.memory.lastGood)
  const previous = input.memory.fingerprint && decodeFingerprint(input.memory.fingerprint)
  const built = await buildVersion(
    {
      ...input.request,
      deferTokens: true,
      settle: heap.settle,
      release: heap.release,
      ...(previous ? { previous } : {}),
    },
    createFsSourceReader(input.read),
    lastGood,
  )
  const catalog = built.changed ? encodeCatalog(built.catalog) : undefined
  const views = built.views ? encodeViews(built.views) : undefined
  const memory: BuilderMemory = {
    lastGood: serializeLastGood(built.lastGood, lastGood.bytesOf),
    fingerprint: encodeFingerprint(built.fingerprint),
  }
  const message = {
    ok: true,
    changed: built.changed,
    diff: built.diff,
    catalog,
    views,
    memory,
    inputs: built.inputs,
  }
  const transfer = transferables(
    catalog ? [catalog.bytes] : [],
    views ? views.documents.map((document) => document.body) : [],
  )
  return { message, transfer, samples: built.views?.tokenSamples }
}

/** The worker's second message, after a changed build: each view's and format's tokens. */
export interface TokenAnswer {
  readonly tokens: TokenSizes
}

// Node 24's V8 pools the pages of a worker that ends for the process to reuse, and only its memory
// reducer, on an idle main thread, gives them back: ≈ 80 MB after a Kubernetes build, held for good
// under steady load. Released before the thread ends, built or failed, they go back at once.
run(workerData as WorkerInput)
  .catch((err: Error) => {
    parentPort!.postMessage({ ok: false, error: err.message })
  })
  .finally(releaseMemory)
