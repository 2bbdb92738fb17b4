import fp from 'fastify-plugin'
import {
  type Catalog,
  type CatalogOptions,
  fetchRemoteTools,
  type LoadedRemote,
  loadCatalog,
  type Problem,
  RemoteSourceError,
  type RemoteSourceOptions,
  type Service,
  type SourceReader,
  type Tool,
} from '../src/catalog/index.js'
import { catalogOptions, type GatewayConfig } from '../src/config/load-config.js'
import { type ArgumentValidator, createArgumentValidator } from '../src/executor/index.js'
import {
  createViewRenderers,
  measureViews,
  type RenderOptions,
  renderViews,
  ServedDocument,
  type ServedSize,
  type ViewDocuments,
} from '../src/formats/index.js'
import { PACKAGE_VERSION } from '../src/version.js'

declare module 'fastify' {
  interface FastifyInstance {
    catalogStore: CatalogStore
  }
}

/** One catalog version and everything derived from it, built once and swapped as a whole. */
export interface CatalogSnapshot {
  readonly catalog: Catalog
  readonly loadedAt: string
  /** format → view → the served document (bytes, ETag, compressed variants). */
  readonly documents: ViewDocuments
  /** Per view and format: bytes served and tool count. */
  readonly sizes: Readonly<Record<string, Readonly<Record<string, ServedSize>>>>
  /** GET /catalog. */
  readonly catalogDocument: ServedDocument
  /** One service's tools in a format, rendered on first demand and kept for this version. */
  serviceDocument(format: string, view: string, serviceId: string): ServedDocument | undefined
  /** A service by id or alias (aliases and ids may hold dots: `api.github.com`). */
  findService(name: string): Service | undefined
  /** A callable tool by wire name or tool ID (ignored tools are not callable). */
  findTool(name: string): Tool | undefined
  serviceOf(tool: Tool): Service
  /** Argument validators of this catalog version, compiled per tool on first use. */
  readonly validator: ArgumentValidator
}

export interface CatalogStore {
  current(): CatalogSnapshot
}

export interface CatalogStoreDeps {
  readonly specsDir: string
  readonly reader: SourceReader
  readonly options: CatalogOptions
  readonly render: RenderOptions
  readonly remoteSources?: readonly RemoteSourceOptions[]
  readonly now?: () => Date
}

/**
 * Queries every remote source (seed 004). A required one that fails stops the start with its
 * message; an optional one is reported as a failed source with the error, and the rest serve.
 */
export async function loadRemoteSources(sources: readonly RemoteSourceOptions[]) {
  const results = await Promise.all(
    sources.map(async (source) => {
      try {
        return { source, tools: await fetchRemoteTools(source) }
      } catch (err) {
        if (source.required || !(err instanceof RemoteSourceError)) throw err
        return { source, error: (err as Error).message }
      }
    }),
  )
  const remotes: LoadedRemote[] = []
  const failed: string[] = []
  const problems: Problem[] = []
  for (const result of results) {
    if ('tools' in result && result.tools) remotes.push({ source: result.source, tools: result.tools })
    else {
      failed.push(`remote:${result.source.id}`)
      problems.push({
        code: 'remote-source-failed',
        severity: 'error',
        file: `remote:${result.source.id}`,
        pointer: '',
        message: result.error ?? '',
      })
    }
  }
  return { remotes, failed, problems }
}

export function buildSnapshot(catalog: Catalog, loadedAt: Date, render: RenderOptions): CatalogSnapshot {
  const documents = renderViews(catalog, [...createViewRenderers(render)])
  const sizes = measureViews(catalog, documents)
  const callable = new Map<string, Tool>()
  for (const tool of catalog.tools) {
    if (tool.ignored) continue
    callable.set(tool.wireName, tool)
    callable.set(tool.id, tool)
  }
  const services = new Map(catalog.services.map((service) => [service.id, service]))
  const renderers = new Map(createViewRenderers(render).map((renderer) => [renderer.format, renderer]))
  const perService = new Map<string, ServedDocument>()
  const serviceDocument = (format: string, view: string, serviceId: string) => {
    const renderer = renderers.get(format)
    if (!renderer?.renderService || !catalog.views[view] || !services.has(serviceId)) return undefined
    const key = `${format}\u0000${view}\u0000${serviceId}`
    let document = perService.get(key)
    if (!document) {
      document = new ServedDocument(renderer.renderService(catalog, view, serviceId))
      perService.set(key, document)
    }
    return document
  }
  return Object.freeze({
    catalog,
    loadedAt: loadedAt.toISOString(),
    documents,
    sizes,
    catalogDocument: new ServedDocument({ ...catalog, loadedAt: loadedAt.toISOString(), sizes }),
    findTool: (name: string) => callable.get(name),
    serviceDocument,
    findService: (name: string) =>
      services.get(name) ?? catalog.services.find((service) => service.alias === name),
    serviceOf: (tool: Tool) => services.get(tool.serviceId)!,
    validator: createArgumentValidator(),
  })
}

export async function createCatalogStore(deps: CatalogStoreDeps): Promise<CatalogStore> {
  const now = deps.now ?? (() => new Date())
  const remote = await loadRemoteSources(deps.remoteSources ?? [])
  const snapshot = buildSnapshot(
    await loadCatalog(deps.specsDir, deps.reader, deps.options, remote),
    now(),
    deps.render,
  )
  return { current: () => snapshot }
}

/** What the renderers take from the configuration. */
export function renderOptions(config: GatewayConfig): RenderOptions {
  const authRequirements = Object.fromEntries(
    Object.entries(config.file.services ?? {}).map(([id, service]) => [
      id,
      service.opal?.authRequirements ?? [],
    ]),
  )
  return {
    opal: {
      name: config.file.opal?.name ?? 'toolgate',
      ...(config.file.opal?.description ? { description: config.file.opal.description } : {}),
      version: PACKAGE_VERSION,
      authRequirements,
    },
  }
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
      render: renderOptions(fastify.config),
      remoteSources: fastify.config.remoteSources,
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
