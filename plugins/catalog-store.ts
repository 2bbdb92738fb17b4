import fp from 'fastify-plugin'
import type { SourceReader } from '../src/catalog/index.js'
import { ConfigError, catalogOptions, remoteReadLimits, specReadLimits } from '../src/config/load-config.js'
import {
  type CatalogStore,
  createCatalogStore,
  type ReloadRecord,
  renderOptions,
} from '../src/store/index.js'
import { recordCatalogReload, traceCatalogBuild } from '../src/tracing/catalog-span.js'

declare module 'fastify' {
  interface FastifyInstance {
    catalogStore: CatalogStore
  }
}

export interface CatalogStorePluginOptions {
  /** A test's reader: builds then run in-process. Absent (the server): each build runs in a bounded worker. */
  readonly reader?: SourceReader
}

/** Diffs can list a thousand tools; a log line names the first few and counts the rest. */
const LOGGED_IDS = 20

/**
 * Holds the catalog: loaded once before the server listens, then reloaded (server.ts starts the
 * watcher and SIGHUP). Every reload is logged with its diff; problems a reload brought are warned.
 */
export default fp<CatalogStorePluginOptions>(
  async function catalogStore(fastify, opts) {
    const create = () =>
      createCatalogStore({
        specsDir: fastify.config.specsDir,
        ...(opts.reader ? { reader: opts.reader } : {}),
        bounds: { ...fastify.config.build, read: specReadLimits(fastify.config) },
        options: catalogOptions(fastify.config),
        render: renderOptions(fastify.config),
        remoteSources: fastify.config.remoteSources,
        remoteRead: remoteReadLimits(fastify.config),
      })
    const store = await (fastify.tracingEnabled ? traceCatalogBuild(create) : create())
    const { catalog } = store.current()
    // Credentials for a scheme the spec lacks are a configuration mistake: the start stops (issue 45).
    const misconfigured = catalog.problems.filter((problem) => problem.code === 'credentials-scheme-mismatch')
    if (misconfigured.length > 0) {
      await store.close()
      throw new ConfigError(misconfigured.map((problem) => `${problem.file}: ${problem.message}`))
    }
    const errors = catalog.problems.filter((problem) => problem.severity === 'error')
    fastify.log.info(
      { catalogVersion: catalog.version, tools: catalog.tools.length, errors: errors.length },
      'catalog loaded',
    )
    for (const problem of errors)
      fastify.log.warn({ problem }, `spec problem in ${problem.file}: ${problem.message}`)

    store.onReload((record, snapshot) => {
      if (fastify.tracingEnabled) recordCatalogReload(record)
      if (record.error) {
        fastify.log.error(
          { reload: record },
          `catalog reload failed, the last good catalog keeps serving: ${record.error}`,
        )
        return
      }
      if (!record.swapped) {
        fastify.log.debug({ reload: summary(record) }, 'catalog reload: nothing changed')
        return
      }
      fastify.log.info({ reload: summary(record) }, 'catalog reloaded')
      for (const problem of snapshot.catalog.problems)
        if (
          problem.severity === 'error' &&
          (record.stale.includes(problem.file) || record.failed.includes(problem.file))
        )
          fastify.log.warn({ problem }, `spec problem in ${problem.file}: ${problem.message}`)
    })
    fastify.addHook('onClose', () => store.close())
    fastify.decorate('catalogStore', store)
  },
  { name: 'catalog-store', dependencies: ['config'] },
)

function summary(record: ReloadRecord) {
  const first = (ids: readonly string[]) => ({ count: ids.length, ids: ids.slice(0, LOGGED_IDS) })
  return {
    ...record,
    diff: {
      added: first(record.diff.added),
      removed: first(record.diff.removed),
      changed: first(record.diff.changed),
    },
  }
}
