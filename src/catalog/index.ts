import { buildCatalog, type CatalogInput } from './build-catalog.js'
import { DEFAULT_CATALOG_LIMITS } from './limits.js'
import { loadSpecsDirectory, type SourceReader } from './load-sources.js'
import type { CatalogOptions } from './options.js'
import type { Catalog } from './types.js'

export { buildCatalog, type CatalogInput } from './build-catalog.js'
export { DISCOVER_VIEW } from './build-views.js'
export { type CatalogDiff, diffCatalogs, diffToolHashes, isEmptyDiff } from './diff-catalogs.js'
export {
  createFsSourceReader,
  DEFAULT_READ_TIMEOUT_MS,
  DEFAULT_SPEC_BYTES,
  fsSourceReader,
  type SpecReadLimits,
} from './fs-reader.js'
export { buildKeepingLastGood, type LastGoodSources, type RebuiltCatalog } from './keep-last-good.js'
export {
  type CatalogLimits,
  countOperations,
  countSchemaNodes,
  DEFAULT_CATALOG_LIMITS,
} from './limits.js'
export { type LoadedSource, type LoadResult, loadSpecsDirectory, type SourceReader } from './load-sources.js'
export type { CatalogOptions, PolicyRule, ProfileOptions, ServiceOptions } from './options.js'
export { PROBLEM_CODES, type ProblemCode } from './problems.js'
export {
  DEFAULT_REMOTE_SOURCE_BYTES,
  fetchRemoteTools,
  type LoadedRemote,
  REMOTE_TOKEN_SCHEME,
  type RemoteReadOptions,
  RemoteSourceError,
  type RemoteSourceOptions,
  type RemoteTool,
} from './remote-source.js'
export {
  buildSearchIndex,
  buildSearchIndexAsync,
  MAX_QUERY_TERMS,
  type ToolMatch,
  type ToolSearchIndex,
  type ToolSearchOptions,
} from './search-index.js'
export { SourceReadError } from './source-read-error.js'
export type * from './types.js'
export { assignNamespaceNames } from './wire-name.js'

/** Loads a specs directory and builds its catalog in one call. */
export async function loadCatalog(
  dir: string,
  reader: SourceReader,
  options: CatalogOptions = {},
  remote: Pick<CatalogInput, 'remotes' | 'failed' | 'problems'> = {},
): Promise<Catalog> {
  const loaded = await loadSpecsDirectory(dir, reader, { ...DEFAULT_CATALOG_LIMITS, ...options.limits })
  return buildCatalog(
    {
      ...loaded,
      remotes: remote.remotes ?? [],
      failed: [...loaded.failed, ...(remote.failed ?? [])],
      problems: [...loaded.problems, ...(remote.problems ?? [])],
    },
    options,
  )
}
