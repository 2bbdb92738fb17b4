import { setFlagsFromString } from 'node:v8'
import { Worker, type WorkerOptions } from 'node:worker_threads'
import { createFsSourceReader, type SpecReadLimits } from '../catalog/fs-reader.js'
import type { Catalog, CatalogDiff, CatalogOptions, LoadedSource, SourceReader } from '../catalog/index.js'
import type { RenderedViews, RenderOptions, TokenSizes } from '../formats/index.js'
import { releaseSpareYoungGeneration } from '../util/collect-garbage.js'
import { type BuildInputs, createInputsCheck } from './build-inputs.js'
import type { buildVersion, VersionFingerprint } from './build-version.js'
import {
  type BuilderMemory,
  type CatalogBytes,
  COUNT_TOKENS,
  type DocumentBytes,
  decodeCatalog,
  decodeViews,
  remoteWithoutTokens,
} from './build-wire.js'
import type { TokenAnswer, WorkerInput } from './build-worker.js'
import type { RemoteState } from './remote-sources.js'

/**
 * Builds catalog versions one after the other, remembering between builds what the next one
 * needs (the last good version of each source, the serving version's fingerprints).
 */
export interface CatalogBuilder {
  /**
   * Throws a CatalogBuildError when the build fails as a whole; the builder's memory is then
   * unchanged. When the last build read exactly what is there now and got the same remote
   * sources, nothing is built: unchanged, an empty diff.
   */
  build(remote: RemoteState, reload: boolean): Promise<BuildOutcome>
  /** Stops a running build. */
  close(): Promise<void>
}

export interface BuildOutcome {
  /** False when neither the catalog version nor its problems changed: nothing to swap. */
  readonly changed: boolean
  readonly diff: CatalogDiff
  /** The new catalog and its rendered views, when changed. */
  readonly catalog?: Catalog
  readonly views?: RenderedViews
  /** The views' token counts when they come after the build, from the build worker. */
  readonly tokens?: DeferredTokens
}

/**
 * The build worker counts the views' tokens after its answer, once the store asks (issue 20, row
 * 6b): the count (the tokenizer, ≈ 35 MB of the worker's) then neither adds to the main thread's
 * decode of the answer nor to both versions held until the swapped-out one is collected.
 */
export interface DeferredTokens {
  /** The counts; undefined when they could not be counted (the worker stopped or timed out). */
  readonly counted: Promise<TokenSizes | undefined>
  /** Lets the worker count; until then it waits, bounded by limits.buildTimeoutMs. */
  count(): void
}

export interface BuilderSettings {
  readonly specsDir: string
  readonly options: CatalogOptions
  readonly render: RenderOptions
}

export interface WorkerBounds {
  /** A build running longer is stopped. */
  readonly timeoutMs: number
  /** The worker's old-generation heap: a build needing more is stopped by V8. */
  readonly memoryMb: number
  /** How the worker reads spec files (limits.specBytes, limits.readTimeoutMs); the reader's defaults when absent. */
  readonly read?: SpecReadLimits
}

/** A whole build failed (stopped, out of memory, specs directory unreadable); no source is to blame alone. */
export class CatalogBuildError extends Error {
  override readonly name = 'CatalogBuildError'
}

/**
 * Builds on the calling thread, reading through `reader`: the seam for tests that inject a fake
 * reader (and for the CLI). The server builds in a worker (createWorkerBuilder).
 */
export function createInProcessBuilder(settings: BuilderSettings, reader: SourceReader): CatalogBuilder {
  let lastGood: ReadonlyMap<string, LoadedSource> = new Map()
  let previous: VersionFingerprint | undefined
  const inputs = createInputsCheck(reader)
  return {
    async build(remote, reload) {
      if (await inputs.unchanged(remote)) return UNCHANGED
      let built: Awaited<ReturnType<typeof buildVersion>>
      try {
        // Loaded on the first build: the server builds in a worker, so its main thread never
        // holds the spec parsing, $ref bundling and upgrade code (and their libraries).
        const { buildVersion } = await import('./build-version.js')
        built = await buildVersion(
          { ...settings, remote, reload, ...(previous ? { previous } : {}) },
          reader,
          lastGood,
        )
      } catch (err) {
        throw new CatalogBuildError((err as Error).message)
      }
      lastGood = built.lastGood
      previous = built.fingerprint
      inputs.remember(remote, built.inputs)
      return {
        changed: built.changed,
        diff: built.diff,
        ...(built.changed ? { catalog: built.catalog } : {}),
        ...(built.views ? { views: built.views } : {}),
      }
    },
    async close() {},
  }
}

/** A reload that found every input as the serving catalog's build read it. */
const UNCHANGED: BuildOutcome = Object.freeze({
  changed: false,
  diff: Object.freeze({ added: [], removed: [], changed: [] }),
})

const WORKER_URL = new URL('./build-worker.js', import.meta.url)

/**
 * The build worker's semi-space, in MB: its young generation is two of them. V8 takes it from
 * `--max-semi-space-size` when that flag is set, over `resourceLimits.maxYoungGenerationSizeMb`,
 * and the flag is the process's: under the image's `CMD` (16) the worker's new space grew to
 * 32 MB, on top of the gateway's RSS while it renders beside the serving version (issue 20, row
 * 6b). The flag is read when an isolate is made, so it is set to this before each worker starts:
 * the main thread's isolate, made at start, keeps its own. Kubernetes' reload peaked at 301–337 MB
 * with 4 against 337–352 with 16 (probe, 3 reloads each), in the same time; 2 was no lower.
 */
export const WORKER_SEMI_SPACE_MB = 4

/** A worker thread whose young generation is two WORKER_SEMI_SPACE_MB semi-spaces, whatever the process's flag. */
export function startWorker(script: string | URL, options: WorkerOptions): Worker {
  setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`)
  return new Worker(script, options)
}

/** How long the main thread's event loop is watched, as a build worker boots, before it may give its young generation back. */
const QUIET_WINDOW_MS = 100

interface WorkerAnswer {
  readonly ok: boolean
  readonly error?: string
  readonly changed: boolean
  readonly diff: CatalogDiff
  readonly catalog?: CatalogBytes
  readonly views?: { sizes: RenderedViews['sizes']; documents: DocumentBytes[] }
  readonly memory: BuilderMemory
  readonly inputs?: BuildInputs
}

interface Answered {
  readonly answer: WorkerAnswer
  readonly tokens?: DeferredTokens
}

/**
 * Builds each version in a fresh worker thread (issue 14: a 60 MB spec blocked every request for
 * 16 s when built on the event loop). The worker is bounded in time and heap; when it is stopped
 * the build fails with a reason, and the catalog serving stays. The main thread only decodes the
 * answer, a slice per turn of the event loop. Whether anything changed is checked before a worker
 * starts (starting one alone took 0.7–0.9 s on the bench box): the main thread lists and hashes
 * the files the last build read, asynchronously, a 1 MB chunk (about 1 ms) at a time.
 */
export function createWorkerBuilder(settings: BuilderSettings, bounds: WorkerBounds): CatalogBuilder {
  let memory: BuilderMemory = { lastGood: new Map() }
  const inputs = createInputsCheck(createFsSourceReader(bounds.read))
  let running: { worker: Worker; stop(reason: string): void } | undefined
  /** Workers that answered and count tokens, or wait to, stopped on close. */
  const counting = new Set<Worker>()
  let closed = false
  /** The worker's second message, bounded by the build's own time limit; undefined if it never comes. */
  const tokensOf = (worker: Worker): DeferredTokens => {
    counting.add(worker)
    const counted = new Promise<TokenSizes | undefined>((resolve) => {
      const done = (tokens?: TokenSizes) => {
        clearTimeout(timer)
        counting.delete(worker)
        resolve(tokens)
      }
      const timer = setTimeout(() => {
        done()
        void worker.terminate()
      }, bounds.timeoutMs)
      worker.once('message', (answer: TokenAnswer) => done(answer.tokens))
      worker.once('error', () => done())
      worker.once('exit', () => done())
    })
    let asked = false
    const count = () => {
      if (asked) return
      asked = true
      worker.postMessage(COUNT_TOKENS)
    }
    return { counted, count }
  }
  const answerOf = (remote: RemoteState, reload: boolean) =>
    new Promise<Answered>((resolve, reject) => {
      const input: WorkerInput = {
        request: { ...settings, remote: remoteWithoutTokens(remote), reload },
        memory,
        ...(bounds.read ? { read: bounds.read } : {}),
      }
      const worker = startWorker(WORKER_URL, {
        workerData: input,
        resourceLimits: { maxOldGenerationSizeMb: bounds.memoryMb },
      })
      const stop = (reason: string) => {
        reject(new CatalogBuildError(reason))
        void worker.terminate()
      }
      running = { worker, stop }
      // While a reload's worker boots (0.7–0.9 s on the bench box), if the main thread was quiet
      // meanwhile. Not at the start: the young generation the start leaves is the one requests
      // find, and one shrunk there stayed small under load (bench/README.md, eighth pass).
      const release =
        reload && setTimeout(releaseSpareYoungGeneration, QUIET_WINDOW_MS, performance.eventLoopUtilization())
      const timer = setTimeout(
        () =>
          stop(
            `the catalog build took longer than limits.buildTimeoutMs (${bounds.timeoutMs} ms) and was stopped; the catalog serving stays`,
          ),
        bounds.timeoutMs,
      )
      const settle = () => {
        clearTimeout(timer)
        if (release) clearTimeout(release)
        if (running?.worker === worker) running = undefined
      }
      worker.once('message', (answer: WorkerAnswer) => {
        settle()
        if (!answer.ok) reject(new CatalogBuildError(answer.error ?? 'the catalog build failed'))
        // Listening now, in this turn: the second message cannot slip past.
        else resolve({ answer, ...(answer.views ? { tokens: tokensOf(worker) } : {}) })
      })
      worker.once('error', (err: Error & { code?: string }) => {
        settle()
        reject(
          new CatalogBuildError(
            err.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? `the catalog build needed more memory than limits.buildMemoryMb (${bounds.memoryMb} MB) and was stopped; the catalog serving stays`
              : `the catalog build failed: ${err.message}`,
          ),
        )
      })
      worker.once('exit', (code) => {
        settle()
        reject(new CatalogBuildError(`the catalog build worker exited (code ${code}) without an answer`))
      })
    })
  return {
    async build(remote, reload) {
      if (await inputs.unchanged(remote)) return UNCHANGED
      // Checked after the check's await: a store closed meanwhile starts no worker it would not stop.
      if (closed) throw new CatalogBuildError('the catalog store is closed')
      const { answer, tokens } = await answerOf(remote, reload)
      memory = answer.memory
      inputs.remember(remote, answer.inputs)
      return {
        changed: answer.changed,
        diff: answer.diff,
        ...(answer.catalog ? { catalog: await decodeCatalog(answer.catalog) } : {}),
        ...(answer.views ? { views: decodeViews(answer.views) } : {}),
        ...(tokens ? { tokens } : {}),
      }
    },
    async close() {
      closed = true
      const worker = running?.worker
      running?.stop('the gateway is shutting down; the catalog build was stopped')
      await Promise.all([worker?.terminate(), ...[...counting].map((w) => w.terminate())])
    },
  }
}
