import { buildCatalog, type CatalogInput } from './build-catalog.js'
import type { LoadedSource, LoadResult } from './load-sources.js'
import type { CatalogOptions } from './options.js'
import { createProblemSink } from './problems.js'
import type { Catalog, Problem } from './types.js'

/**
 * The last version of each spec file that loaded and built without an error. Only looked up (the
 * build process passes a map that deserializes an entry on first use).
 */
export type LastGoodSources = Pick<ReadonlyMap<string, LoadedSource>, 'has' | 'get'>

export interface RebuiltCatalog {
  readonly catalog: Catalog
  /** What to remember for the next reload: every file that is good now, plus the stale ones kept. */
  readonly lastGood: ReadonlyMap<string, LoadedSource>
  /** Files that are broken now and serve their last good version. */
  readonly stale: readonly string[]
}

/**
 * Builds a reloaded catalog in which a file that broke keeps serving its last good version
 * (SPEC §5 "a broken spec keeps the last good catalog serving"), with its new problems reported
 * and its source marked `stale`. A file that never loaded, or was deleted, has nothing to keep.
 * A file can break while loading (unparsable) or while building (it now claims a service id
 * another file holds): both are caught, the second by building once more.
 */
export function buildKeepingLastGood(
  loaded: LoadResult,
  lastGood: LastGoodSources,
  options: CatalogOptions,
  remote: Pick<CatalogInput, 'remotes' | 'failed' | 'problems' | 'stale'> = {},
): RebuiltCatalog {
  const build = (stale: readonly string[], buildProblems: readonly Problem[] = []) => {
    // In file-name order, as loaded: the order of services is part of the catalog version.
    const sources = [
      ...loaded.sources.filter((source) => !stale.includes(source.sourceId)),
      ...stale.map((sourceId) => lastGood.get(sourceId)!),
    ].sort((a, b) => (a.sourceId < b.sourceId ? -1 : 1))
    const problems: Problem[] = [...loaded.problems, ...(remote.problems ?? []), ...buildProblems]
    for (const sourceId of [...stale, ...(remote.stale ?? [])])
      createProblemSink(sourceId, problems).warn(
        'source-kept-last-good',
        '',
        'this source has errors (listed with it); its last good version keeps serving until it is fixed or removed',
      )
    return buildCatalog(
      {
        sources,
        remotes: remote.remotes ?? [],
        failed: [...loaded.failed.filter((name) => !stale.includes(name)), ...(remote.failed ?? [])],
        problems,
        stale: [...stale, ...(remote.stale ?? [])],
      },
      options,
    )
  }
  let stale = loaded.failed.filter((name) => lastGood.has(name))
  let catalog = build(stale)
  const failedWhileBuilding = catalog.sources
    .filter((source) => source.status === 'failed' && lastGood.has(source.sourceId))
    .map((source) => source.sourceId)
    .filter((sourceId) => !stale.includes(sourceId))
  if (failedWhileBuilding.length > 0) {
    // What broke them (a service id taken, credentials for a scheme the spec lost) stays reported.
    const why = catalog.problems.filter(
      (problem) => problem.severity === 'error' && failedWhileBuilding.includes(problem.file),
    )
    stale = [...stale, ...failedWhileBuilding]
    catalog = build(stale, why)
  }
  const used = new Map<string, LoadedSource>()
  for (const source of loaded.sources) used.set(source.sourceId, source)
  for (const sourceId of stale) used.set(sourceId, lastGood.get(sourceId)!)
  const good = new Map<string, LoadedSource>()
  for (const report of catalog.sources) {
    const source = used.get(report.sourceId)
    if (source && report.status !== 'failed') good.set(report.sourceId, source)
  }
  return { catalog, lastGood: good, stale }
}
