import fp from 'fastify-plugin'
import { type Catalog, type CatalogOptions, loadCatalog, type SourceReader } from '../src/catalog/index.js'
import { catalogOptions } from '../src/config/load-config.js'
import { measureViews, type ServedSize, VIEW_RENDERERS } from '../src/formats/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    catalogStore: CatalogStore
  }
}

/** One catalog version and everything derived from it, built once and swapped as a whole. */
export interface CatalogSnapshot {
  readonly catalog: Catalog
  readonly loadedAt: string
  /** Per view and format: bytes served and tool count. */
  readonly sizes: Readonly<Record<string, Readonly<Record<string, ServedSize>>>>
  /** The body of GET /catalog, serialized once per version. */
  readonly catalogJson: Buffer
}

export interface CatalogStore {
  current(): CatalogSnapshot
}

export interface CatalogStoreDeps {
  readonly specsDir: string
  readonly reader: SourceReader
  readonly options: CatalogOptions
  readonly now?: () => Date
}

export function buildSnapshot(catalog: Catalog, loadedAt: Date): CatalogSnapshot {
  const sizes = measureViews(catalog, VIEW_RENDERERS)
  const catalogJson = Buffer.from(JSON.stringify({ ...catalog, loadedAt: loadedAt.toISOString(), sizes }))
  return Object.freeze({ catalog, loadedAt: loadedAt.toISOString(), sizes, catalogJson })
}

export async function createCatalogStore(deps: CatalogStoreDeps): Promise<CatalogStore> {
  const now = deps.now ?? (() => new Date())
  const snapshot = buildSnapshot(await loadCatalog(deps.specsDir, deps.reader, deps.options), now())
  return { current: () => snapshot }
}

export interface CatalogStorePluginOptions {
  readonly reader: SourceReader
}

export default fp<CatalogStorePluginOptions>(
  async function catalogStore(fastify, opts) {
    const store = await createCatalogStore({
      specsDir: fastify.config.specsDir,
      reader: opts.reader,
      options: catalogOptions(fastify.config),
    })
    const { catalog } = store.current()
    const errors = catalog.problems.filter((problem) => problem.severity === 'error')
    fastify.log.info(
      { catalogVersion: catalog.version, tools: catalog.tools.length, errors: errors.length },
      'catalog loaded',
    )
    for (const problem of errors)
      fastify.log.warn({ problem }, `spec problem in ${problem.file}: ${problem.message}`)
    fastify.decorate('catalogStore', store)
  },
  { name: 'catalog-store', dependencies: ['config'] },
)
