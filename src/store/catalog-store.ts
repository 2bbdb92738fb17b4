import type {
  Catalog,
  CatalogOptions,
  RemoteReadOptions,
  RemoteSourceOptions,
  SourceReader,
} from '../catalog/index.js'
import { buildSearchIndexAsync } from '../catalog/search-index.js'
import type { RenderOptions } from '../formats/index.js'
import {
  type BuildBounds,
  type CatalogBuilder,
  createInProcessBuilder,
  createProcessBuilder,
} from './catalog-builder.js'
import { loadRemoteSources, NO_REMOTES, type RemoteState } from './remote-sources.js'
import { buildSnapshot, type CatalogSnapshot } from './snapshot.js'
import type { ReloadRecord, ReloadTrigger } from './types.js'
import { type SpecsWatcher, watchSpecs } from './watch-specs.js'

export interface CatalogStore {
  /** The snapshot serving now; a request reads it once and keeps it to the end. */
  current(): CatalogSnapshot
  /**
   * Rebuilds the catalog off the request path and swaps it in whole. Reloads never overlap: one
   * asked for while another runs happens once after it, however many were asked for.
   */
  reload(trigger: ReloadTrigger): Promise<ReloadRecord>
  /** The latest reloads, oldest first. */
  history(): readonly ReloadRecord[]
  onReload(listener: (record: ReloadRecord, snapshot: CatalogSnapshot) => void): void
  /** Starts watching the specs directory (server only; tests reload by hand). */
  watch(options: StoreWatchOptions): Promise<void>
  close(): Promise<void>
}

export interface StoreWatchOptions {
  readonly debounceMs?: number
  readonly pollMs: number
  readonly onError: (err: Error) => void
}

export interface CatalogStoreDeps {
  readonly specsDir: string
  /** Given (tests, tools): builds run in-process through it. Absent: each build runs in a bounded child process. */
  readonly reader?: SourceReader
  /** The build process's bounds (limits.buildTimeoutMs, limits.buildMemoryMb). */
  readonly bounds?: BuildBounds
  readonly options: CatalogOptions
  readonly render: RenderOptions
  readonly remoteSources?: readonly RemoteSourceOptions[]
  /** Bounds on reading them (limits.remoteSourceBytes). */
  readonly remoteRead?: RemoteReadOptions
  readonly now?: () => Date
}

/** The defaults of limits.buildTimeoutMs and limits.buildMemoryMb (load-config.ts). */
export const DEFAULT_BUILD_BOUNDS: BuildBounds = { timeoutMs: 60_000, memoryMb: 2_048 }

const HISTORY_SIZE = 20
const DEBOUNCE_MS = 250 // editors and kubelet write a change in several steps within a few ms
const MAX_WAIT_MS = 1_000 // a steady stream of events still reloads within about a second

/** Loads the catalog once (a required remote source that fails stops the start), then serves and reloads it. */
export async function createCatalogStore(deps: CatalogStoreDeps): Promise<CatalogStore> {
  const now = deps.now ?? (() => new Date())
  const remoteSources = deps.remoteSources ?? []
  const read = deps.remoteRead ?? {}
  let remote: RemoteState =
    remoteSources.length > 0 ? await loadRemoteSources(remoteSources, undefined, read) : NO_REMOTES
  const settings = { specsDir: deps.specsDir, options: deps.options, render: deps.render }
  const builder: CatalogBuilder = deps.reader
    ? createInProcessBuilder(settings, deps.reader)
    : createProcessBuilder(settings, deps.bounds ?? DEFAULT_BUILD_BOUNDS)
  // The first build takes the same path as every reload; when it fails as a whole, the start does.
  const first = await builder.build(remote, false).catch(async (err: Error) => {
    await builder.close()
    throw new Error(`the first catalog build failed: ${err.message}`)
  })
  let snapshot = buildSnapshot(
    first.catalog!,
    now(),
    deps.render,
    undefined,
    first.views,
    first.tokens?.counted,
    await buildSearchIndexAsync(first.catalog!),
  )
  first.tokens?.count()
  const history: ReloadRecord[] = []
  const listeners: ((record: ReloadRecord, snapshot: CatalogSnapshot) => void)[] = []
  let watcher: SpecsWatcher | undefined

  const run = async (trigger: ReloadTrigger): Promise<ReloadRecord> => {
    const startedAt = now()
    const started = performance.now()
    const before = snapshot.catalog
    let record: ReloadRecord
    try {
      // Remote sources are asked again only when an operator asks (SIGHUP), not on every file event.
      if (remoteSources.length > 0 && (trigger === 'signal' || trigger === 'manual'))
        remote = await loadRemoteSources(remoteSources, remote, read)
      const built = await builder.build(remote, true)
      const after = built.catalog ?? before
      const swapped = built.changed
      record = {
        trigger,
        startedAt: startedAt.toISOString(),
        durationMs: Math.round(performance.now() - started),
        outcome: after.sources.some((source) => source.status !== 'ok') ? 'failed' : 'ok',
        swapped,
        previousVersion: before.version,
        catalogVersion: after.version,
        diff: built.diff,
        stale: sourcesWith(after, 'stale'),
        failed: sourcesWith(after, 'failed'),
      }
      if (swapped) {
        snapshot = buildSnapshot(
          after,
          startedAt,
          deps.render,
          record,
          built.views,
          built.tokens?.counted,
          // Off the event loop's critical path: a 20,000-tool index yields every 250 tools.
          await buildSearchIndexAsync(after),
        )
        // After the swap: the build process's tokenizer does not add to the decode's peak.
        built.tokens?.count()
      }
    } catch (err) {
      record = {
        trigger,
        startedAt: startedAt.toISOString(),
        durationMs: Math.round(performance.now() - started),
        outcome: 'failed',
        swapped: false,
        previousVersion: before.version,
        catalogVersion: before.version,
        diff: { added: [], removed: [], changed: [] },
        stale: [],
        failed: [],
        error: (err as Error).message,
      }
    }
    history.push(record)
    if (history.length > HISTORY_SIZE) history.shift()
    for (const listener of listeners) listener(record, snapshot)
    return record
  }

  let running: Promise<ReloadRecord> | undefined
  let queued: Promise<ReloadRecord> | undefined
  const reload = (trigger: ReloadTrigger): Promise<ReloadRecord> => {
    if (!running) {
      running = run(trigger).finally(() => {
        running = undefined
      })
      return running
    }
    queued ??= running.then(() => {
      queued = undefined
      return reload(trigger)
    })
    return queued
  }

  return {
    current: () => snapshot,
    reload,
    history: () => [...history],
    onReload: (listener) => {
      listeners.push(listener)
    },
    async watch(options) {
      if (watcher) return
      watcher = await watchSpecs(deps.specsDir, {
        debounceMs: options.debounceMs ?? DEBOUNCE_MS,
        maxWaitMs: MAX_WAIT_MS,
        pollMs: options.pollMs,
        onChange: (trigger) => void reload(trigger),
        onError: options.onError,
      })
    },
    async close() {
      await watcher?.close()
      watcher = undefined
      await builder.close()
    },
  }
}

function sourcesWith(catalog: Catalog, status: 'stale' | 'failed'): string[] {
  return catalog.sources.filter((source) => source.status === status).map((source) => source.sourceId)
}
