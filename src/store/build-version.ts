import {
  buildKeepingLastGood,
  type Catalog,
  type CatalogDiff,
  type CatalogOptions,
  DEFAULT_CATALOG_LIMITS,
  diffToolHashes,
  type LastGoodSources,
  type LoadedSource,
  loadSpecsDirectory,
  type SourceReader,
} from '../catalog/index.js'
import { createViewRenderers, type RenderedViews, type RenderOptions, renderEager } from '../formats/index.js'
import { contentHash, createContentHasher } from '../util/content-hash.js'
import { type BuildInputs, recordingLastGood, recordingReader } from './build-inputs.js'
import type { RemoteState } from './remote-sources.js'

/** What one catalog build needs besides file access and the last good sources: plain data. */
export interface VersionRequest {
  readonly specsDir: string
  readonly options: CatalogOptions
  readonly render: RenderOptions
  readonly remote: RemoteState
  /**
   * On a reload an unreadable specs directory fails the build (the serving catalog stays); at
   * start it is an error problem of an empty catalog.
   */
  readonly reload: boolean
  /** The serving version's fingerprints; absent for the first build. */
  readonly previous?: VersionFingerprint
  /**
   * Leave token counting for after the swap (`views.tokenSamples`): the build process counts once it
   * has answered, so loading the tokenizer (~0.3 s) never delays a new version.
   */
  readonly deferTokens?: boolean
}

/** What the next build compares against: the version, a hash per tool (for the diff), and the reports. */
export interface VersionFingerprint {
  readonly version: string
  readonly toolHashes: ReadonlyMap<string, string>
  /** Problems and source reports are served in /catalog: a change there is a new snapshot too. */
  readonly reportsHash: string
}

export interface BuiltVersion {
  /** False when neither the catalog version nor its reports changed: nothing to swap. */
  readonly changed: boolean
  readonly catalog: Catalog
  readonly diff: CatalogDiff
  readonly fingerprint: VersionFingerprint
  readonly lastGood: ReadonlyMap<string, LoadedSource>
  /** The views rendered and measured; only when changed. */
  readonly views?: RenderedViews
  /** What the build read, for the next reload to compare; undefined when it cannot (the next reload builds). */
  readonly inputs?: BuildInputs
}

/**
 * One catalog build, start to end: load, parse and bundle the specs directory, build keeping the
 * last good version of a broken file, diff against the serving version, and render the views
 * that serve eagerly. Runs in the build process (or in-process where a test injects a reader);
 * it throws only when the specs directory itself cannot be read.
 */
export async function buildVersion(
  request: VersionRequest,
  reader: SourceReader,
  lastGood: LastGoodSources,
): Promise<BuiltVersion> {
  const limits = { ...DEFAULT_CATALOG_LIMITS, ...request.options.limits }
  const recorded = recordingReader(reader)
  const lookedUp = recordingLastGood(lastGood)
  const loaded = await loadSpecsDirectory(request.specsDir, recorded.reader, limits)
  const unreadable = loaded.problems.find(
    (problem) => problem.file === request.specsDir && problem.severity === 'error',
  )
  if (unreadable && request.reload) throw new Error(unreadable.message)
  const rebuilt = buildKeepingLastGood(loaded, lookedUp, request.options, request.remote)
  const inputs = lookedUp.settledIn(rebuilt.lastGood) ? recorded.inputs() : undefined
  const { catalog } = rebuilt
  const fingerprint = fingerprintOf(catalog)
  const previous = request.previous
  const changed =
    !previous || previous.reportsHash !== fingerprint.reportsHash || previous.version !== catalog.version
  return {
    changed,
    catalog,
    diff: diffToolHashes(previous?.toolHashes ?? new Map(), fingerprint.toolHashes),
    fingerprint,
    lastGood: rebuilt.lastGood,
    ...(inputs ? { inputs } : {}),
    ...(changed
      ? {
          views: renderEager(catalog, createViewRenderers(request.render), {
            deferTokens: request.deferTokens ?? false,
          }),
        }
      : {}),
  }
}

function fingerprintOf(catalog: Catalog): VersionFingerprint {
  const hash = createContentHasher()
  return {
    version: catalog.version,
    toolHashes: new Map(catalog.tools.map((tool) => [tool.id, hash(tool)])),
    reportsHash: contentHash({ problems: catalog.problems, sources: catalog.sources }),
  }
}
