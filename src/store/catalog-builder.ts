import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createFsSourceReader, type SpecReadLimits } from '../catalog/fs-reader.js'
import type { Catalog, CatalogDiff, CatalogOptions, LoadedSource, SourceReader } from '../catalog/index.js'
import type { RenderedViews, RenderOptions, TokenSizes } from '../formats/index.js'
import { createInputsCheck } from './build-inputs.js'
import type { buildVersion, VersionFingerprint } from './build-version.js'
import {
  type BuilderMemory,
  type CatalogBytes,
  COUNT_TOKENS,
  type DocumentBytes,
  decodeCatalog,
  decodeViews,
} from './build-wire.js'
import type { WorkerAnswer, WorkerInput, WorkerMessage } from './build-worker.js'
import { type RemoteState, remoteWithoutTokens } from './remote-sources.js'

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
  /** The views' token counts when they come after the build, from the build process. */
  readonly tokens?: DeferredTokens
}

/**
 * The build process counts the views' tokens after its answer, once the store asks (issue 20, row
 * 6b): the count (the tokenizer, ≈ 35 MB of the process's) then does not add to the main thread's
 * decode of the answer.
 */
export interface DeferredTokens {
  /** The counts; undefined when they could not be counted (the process stopped or timed out). */
  readonly counted: Promise<TokenSizes | undefined>
  /** Lets the process count; until then it waits, bounded by limits.buildTimeoutMs. */
  count(): void
}

export interface BuilderSettings {
  readonly specsDir: string
  readonly options: CatalogOptions
  readonly render: RenderOptions
}

export interface BuildBounds {
  /** A build running longer is stopped. */
  readonly timeoutMs: number
  /** The build process's old-generation heap: a build needing more is stopped by V8. */
  readonly memoryMb: number
  /** How the build process reads spec files (limits.specBytes, limits.readTimeoutMs); the reader's defaults when absent. */
  readonly read?: SpecReadLimits
}

/** A whole build failed (stopped, out of memory, specs directory unreadable); no source is to blame alone. */
export class CatalogBuildError extends Error {
  override readonly name = 'CatalogBuildError'
}

/**
 * Builds on the calling thread, reading through `reader`: the seam for tests that inject a fake
 * reader (and for the CLI). The server builds in a child process (createProcessBuilder).
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
        // Loaded on the first build: the server builds in a child process, so it never
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

/** The compiled build script, run with `node` in each build's child process. */
const WORKER_SCRIPT = fileURLToPath(new URL('./build-worker.js', import.meta.url))

/**
 * The build process's semi-space, in MB (`--max-semi-space-size`): its young generation is two of
 * them. Left to V8 (Node 24, no memory limit), a Kubernetes build process peaked at 449–469 MB of
 * RSS; with 4, at 296–311 MB, in the same time (3 reloads each, issue 44); 1 was no lower.
 */
export const BUILD_SEMI_SPACE_MB = 4

/** How much of the build process's stderr is kept for the error when it dies without an answer. */
const STDERR_TAIL_CHARS = 4_096

/** What V8 writes to stderr as it aborts a process that reached its heap limit. */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/

/**
 * The node flags of a build process, and only those: the parent's own (`--inspect`, the image's
 * `--max-semi-space-size`) are not passed on.
 */
export function buildProcessFlags(bounds: Pick<BuildBounds, 'memoryMb'>): string[] {
  return [`--max-old-space-size=${bounds.memoryMb}`, `--max-semi-space-size=${BUILD_SEMI_SPACE_MB}`]
}

interface Answered {
  readonly answer: Extract<WorkerAnswer, { ok: true }>
  readonly catalog?: CatalogBytes
  readonly views?: { sizes: RenderedViews['sizes']; documents: DocumentBytes[] }
  readonly tokens?: DeferredTokens
}

/**
 * Builds each version in a fresh child process (issue 14: a 60 MB spec blocked every request for
 * 16 s when built on the event loop; issue 44: a process gives all its memory back to the system
 * when it ends, which a worker thread's pages in the gateway's own heap did not without forced
 * collections). The process is bounded in time (limits.buildTimeoutMs) and heap
 * (limits.buildMemoryMb, its `--max-old-space-size`); when it is stopped or dies the build fails
 * with a reason, and the catalog serving stays. The main thread only decodes the answer, a slice
 * per turn of the event loop. Whether anything changed is checked before a process starts: the
 * main thread lists and hashes the files the last build read, asynchronously, a 1 MB chunk (about
 * 1 ms) at a time.
 */
export function createProcessBuilder(settings: BuilderSettings, bounds: BuildBounds): CatalogBuilder {
  let memory: BuilderMemory = { lastGood: new Map() }
  const inputs = createInputsCheck(createFsSourceReader(bounds.read))
  let running: { child: ChildProcess; stop(reason: string): void } | undefined
  /** Processes that answered and count tokens, or wait to, stopped on close. */
  const counting = new Set<ChildProcess>()
  let closed = false
  /** The build's last message, bounded by the build's own time limit; undefined if it never comes. */
  const tokensOf = (child: ChildProcess): DeferredTokens => {
    counting.add(child)
    const counted = new Promise<TokenSizes | undefined>((resolve) => {
      const done = (tokens?: TokenSizes) => {
        clearTimeout(timer)
        child.off('message', onMessage)
        counting.delete(child)
        resolve(tokens)
      }
      const timer = setTimeout(() => {
        done()
        child.kill('SIGKILL')
      }, bounds.timeoutMs)
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'tokens') done(message.tokens)
      }
      child.on('message', onMessage)
      child.once('exit', () => done())
    })
    let asked = false
    const count = () => {
      if (asked || !child.connected) return
      asked = true
      child.send(COUNT_TOKENS, (err) => {
        if (err) child.kill('SIGKILL')
      })
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
      const child = fork(WORKER_SCRIPT, [], {
        execArgv: buildProcessFlags(bounds),
        serialization: 'advanced',
        // stdout as the gateway's; stderr read, passed on, and its tail kept for a crash's reason.
        stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      })
      let stderr = ''
      child.stderr!.setEncoding('utf8')
      child.stderr!.on('data', (chunk: string) => {
        process.stderr.write(chunk)
        stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS)
      })
      let settled = false
      const fail = (reason: string) => {
        settle()
        reject(new CatalogBuildError(reason))
      }
      const stop = (reason: string) => {
        fail(reason)
        child.kill('SIGKILL')
      }
      running = { child, stop }
      const timer = setTimeout(
        () =>
          stop(
            `the catalog build took longer than limits.buildTimeoutMs (${bounds.timeoutMs} ms) and was stopped; the catalog serving stays`,
          ),
        bounds.timeoutMs,
      )
      const settle = () => {
        settled = true
        clearTimeout(timer)
        child.off('message', onMessage)
        if (running?.child === child) running = undefined
      }
      let catalog: CatalogBytes | undefined
      const documents: DocumentBytes[] = []
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'catalog') {
          catalog = message.catalog
          return
        }
        if (message.type === 'document') {
          documents.push(message.document)
          return
        }
        if (message.type !== 'answer') return
        if (!message.ok) {
          fail(message.error)
          return
        }
        settle()
        const { type: _type, ...answer } = message
        // Listening for the tokens now, in this turn: they cannot slip past.
        resolve({
          answer,
          ...(catalog ? { catalog } : {}),
          ...(answer.sizes ? { views: { sizes: answer.sizes, documents }, tokens: tokensOf(child) } : {}),
        })
      }
      child.on('message', onMessage)
      // `on`, not `once`: a ChildProcess may emit 'error' more than once (a failed kill, a failed send).
      child.on('error', (err) => {
        if (!settled) stop(`the catalog build failed: ${err.message}`)
      })
      // 'close', not 'exit': stderr is read to its end by then, V8's out-of-memory report included.
      child.once('close', (code, signal) => {
        if (settled) return
        const reason = OUT_OF_MEMORY.test(stderr)
          ? `the catalog build needed more memory than limits.buildMemoryMb (${bounds.memoryMb} MB) and was stopped; the catalog serving stays`
          : `the catalog build process exited (${signal ? `signal ${signal}` : `code ${code}`}) without an answer${lastLine(stderr)}`
        fail(reason)
      })
      child.send(input, (err) => {
        if (err && !settled) stop(`the catalog build could not be started: ${err.message}`)
      })
    })
  return {
    async build(remote, reload) {
      if (await inputs.unchanged(remote)) return UNCHANGED
      // Checked after the check's await: a store closed meanwhile starts no process it would not stop.
      if (closed) throw new CatalogBuildError('the catalog store is closed')
      const { answer, catalog, views, tokens } = await answerOf(remote, reload)
      memory = answer.memory
      inputs.remember(remote, answer.inputs)
      return {
        changed: answer.changed,
        diff: answer.diff,
        ...(catalog ? { catalog: await decodeCatalog(catalog) } : {}),
        ...(views ? { views: decodeViews(views) } : {}),
        ...(tokens ? { tokens } : {}),
      }
    },
    async close() {
      closed = true
      const children = [...(running ? [running.child] : []), ...counting]
      running?.stop('the gateway is shutting down; the catalog build was stopped')
      await Promise.all(children.map(stopped))
    },
  }
}

/** Kills a build process; resolves once it has exited. */
function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGKILL')
  return exited
}

/** `: ` and the last line of a dead process's stderr, if it wrote one. */
function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').at(-1)?.trim()
  return line ? `: ${line}` : ''
}
