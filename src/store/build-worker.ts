// The catalog build worker (issue 14): one per build, so a stalled or runaway build is stopped
// with terminate() and its memory goes back with the thread. It reads the specs directory itself;
// everything else arrives as plain data, and everything it answers is bytes.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parentPort, workerData } from 'node:worker_threads'
import { createFsSourceReader, type SpecReadLimits } from '../catalog/index.js'
import { countTokenSamples, type TokenSizes } from '../formats/index.js'
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
 * A full garbage collection, between the build's steps. The worker's heap may grow to
 * limits.buildMemoryMb (2 GB), and V8 sizes its first old-generation collection from that bound:
 * left to itself, a Kubernetes build piled up ~500 MB of garbage (parsed text, each format's
 * rendering) before collecting any, and the gateway's peak RSS was the main thread's plus that.
 * V8 gives a script its collector only with --expose-gc, a process-wide flag set here, in the
 * worker, for the context made after it.
 */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
})()

async function run(input: WorkerInput) {
  const lastGood = lazyLastGood(input.memory.lastGood)
  const previous = input.memory.fingerprint && decodeFingerprint(input.memory.fingerprint)
  const built = await buildVersion(
    { ...input.request, deferTokens: true, settle: collectGarbage, ...(previous ? { previous } : {}) },
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
  parentPort!.postMessage(
    message,
    transferables(
      catalog ? [catalog.bytes] : [],
      views ? views.documents.map((document) => document.body) : [],
    ),
  )
  // The new version serves already; its token counts follow in a second message (/catalog waits).
  const samples = built.views?.tokenSamples
  if (samples) parentPort!.postMessage({ tokens: countTokenSamples(samples) } satisfies TokenAnswer)
}

/** The worker's second message, after a changed build: each view's and format's tokens. */
export interface TokenAnswer {
  readonly tokens: TokenSizes
}

run(workerData as WorkerInput).catch((err: Error) => {
  parentPort!.postMessage({ ok: false, error: err.message })
})
