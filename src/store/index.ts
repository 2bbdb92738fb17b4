export {
  type CatalogStore,
  type CatalogStoreDeps,
  createCatalogStore,
  type StoreWatchOptions,
} from './catalog-store.js'
export { loadRemoteSources, NO_REMOTES, type RemoteState } from './remote-sources.js'
export { buildSnapshot, type CatalogSnapshot, renderOptions } from './snapshot.js'
export type { ReloadRecord, ReloadTrigger } from './types.js'
export { fingerprintOf, watchSpecs } from './watch-specs.js'
