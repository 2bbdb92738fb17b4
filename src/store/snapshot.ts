import type { Catalog, Service, Tool } from '../catalog/index.js'
import { buildSearchIndex, type ToolSearchIndex } from '../catalog/search-index.js'
import type { GatewayConfig } from '../config/load-config.js'
import {
  type ArgumentValidator,
  createArgumentValidator,
  createOutputValidator,
  type OutputValidator,
} from '../executor/index.js'
import {
  CompressedDocument,
  createViewRenderers,
  type RenderedViews,
  type RenderOptions,
  renderViews,
  ServedDocument,
  type ServedSize,
  type TokenSizes,
  type ViewRenderer,
  withTokens,
} from '../formats/index.js'
import { keepWhenSettled } from '../util/memo.js'
import { getOrAdd, PairMap } from '../util/pair-map.js'
import { PACKAGE_VERSION } from '../version.js'
import type { ReloadRecord } from './types.js'

/** The served documents of one catalog: a view in a format, whole or for one service. */
export interface CatalogDocuments {
  /** A view in a format, as served; undefined for an unknown view or a format never served whole. */
  get(format: string, view: string): ServedDocument | undefined
  /** One service's tools in a format, rendered on first demand and kept for this version. */
  service(format: string, view: string, serviceId: string): ServedDocument | undefined
}

/** One catalog version and everything derived from it, built once and swapped as a whole. */
export interface CatalogSnapshot {
  readonly catalog: Catalog
  readonly loadedAt: string
  /** The reload that produced this version; absent for the one built at start. */
  readonly reload?: ReloadRecord
  /** Each view in each format as served (bytes, ETag, compressed variants). */
  readonly documents: CatalogDocuments
  /** Per view and format: bytes served, tool count and (once counted) tokens. */
  readonly sizes: Readonly<Record<string, Readonly<Record<string, ServedSize>>>>
  /** Settles when the token counts are in `sizes` (or could not be counted): /catalog waits for it. */
  readonly tokensSettled: Promise<void>
  /**
   * GET /catalog, rendered on its first request and kept brotli-compressed: Kubernetes' 1,002
   * tools are 44 MB plain, 0.28 MB so (row 6b held the plain bytes of the serving version and of
   * the next during a reload).
   */
  catalogDocument(): CompressedDocument | Promise<CompressedDocument>
  /**
   * The documents of a catalog derived from this one with narrower views (what one client may
   * call), rendered on first demand and kept for this version; this version's own for its catalog.
   */
  documentsOf(catalog: Catalog): CatalogDocuments
  /** A service by id or alias (aliases and ids may hold dots: `api.github.com`). */
  findService(name: string): Service | undefined
  /** A callable tool by wire name or tool ID (ignored tools are not callable). */
  findTool(name: string): Tool | undefined
  serviceOf(tool: Tool): Service
  /** Argument validators of this catalog version, compiled per tool on first use. */
  readonly validator: ArgumentValidator
  /** Output-schema checks of this catalog version (MCP structuredContent), compiled per tool on first use. */
  readonly outputValidator: OutputValidator
  /**
   * The tool search index of this version (GET /tools/search, MCP search mode), built before the
   * snapshot is swapped in: no search runs on half of a version or pays for the build (~160 ms
   * for Kubernetes + Stripe + Twilio's 1,651 tools, bench/search/run.ts). The store builds it in
   * chunks that yield to the event loop (buildSearchIndexAsync); built here when not given.
   */
  readonly search: ToolSearchIndex
}

export function buildSnapshot(
  catalog: Catalog,
  loadedAt: Date,
  render: RenderOptions,
  reload?: ReloadRecord,
  rendered?: RenderedViews,
  tokens?: Promise<TokenSizes | undefined>,
  search: ToolSearchIndex = buildSearchIndex(catalog),
): CatalogSnapshot {
  const renderers = createViewRenderers(render)
  const { sizes: measured, eager: _documents, ...eager } = renderViews(catalog, renderers, rendered)
  let sizes = measured
  // Counted in the build process after it answered (the version serves meanwhile).
  const tokensSettled = (tokens ?? Promise.resolve(undefined)).then((counted) => {
    if (counted) sizes = withTokens(sizes, counted)
  })
  const documents = documentsWith(catalog, renderers, eager.get)
  const narrowed = new WeakMap<Catalog, CatalogDocuments>()
  let catalogDocument: CompressedDocument | Promise<CompressedDocument> | undefined
  const callable = new Map<string, Tool>()
  for (const tool of catalog.tools) {
    if (tool.ignored) continue
    callable.set(tool.wireName, tool)
    callable.set(tool.id, tool)
  }
  const services = new Map(catalog.services.map((service) => [service.id, service]))
  return Object.freeze({
    catalog,
    loadedAt: loadedAt.toISOString(),
    documents,
    get sizes() {
      return sizes
    },
    tokensSettled,
    ...(reload ? { reload } : {}),
    catalogDocument() {
      return (
        catalogDocument ??
        keepWhenSettled(
          CompressedDocument.of({
            ...catalog,
            loadedAt: loadedAt.toISOString(),
            sizes,
            ...(reload ? { lastReload: reload } : {}),
          }),
          (kept) => {
            catalogDocument = kept
          },
        )
      )
    },
    documentsOf(derived: Catalog) {
      if (derived === catalog) return documents
      let served = narrowed.get(derived)
      if (!served) {
        served = documentsWith(derived, renderers)
        narrowed.set(derived, served)
      }
      return served
    },
    findTool: (name: string) => callable.get(name),
    findService: (name: string) =>
      services.get(name) ?? catalog.services.find((service) => service.alias === name),
    serviceOf: (tool: Tool) => services.get(tool.serviceId)!,
    validator: createArgumentValidator(),
    outputValidator: createOutputValidator(),
    search,
  })
}

/**
 * A catalog's documents, each rendered on its first request and kept; `whole` answers first for
 * the documents rendered ahead of time. Formats with no whole document (MCP) have none here.
 */
function documentsWith(
  catalog: Catalog,
  renderers: readonly ViewRenderer[],
  whole?: (format: string, view: string) => ServedDocument | undefined,
): CatalogDocuments {
  // Documents rendered on first request: whole views by format and view, and per service under
  // their format and view.
  const views = new PairMap<ServedDocument>()
  const services = new PairMap<Map<string, ServedDocument>>()
  const byFormat = new Map(renderers.map((renderer) => [renderer.format, renderer]))
  const serviceIds = new Set(catalog.services.map((service) => service.id))
  return {
    get(format, view) {
      const ready = whole?.(format, view)
      if (ready || whole) return ready
      const renderer = byFormat.get(format)
      if (!renderer || renderer.served === 'measured' || !catalog.views[view]) return undefined
      return views.getOrAdd(format, view, () => new ServedDocument(renderer.render(catalog, view)))
    },
    service(format, view, serviceId) {
      const renderer = byFormat.get(format)
      if (!renderer?.renderService || !catalog.views[view] || !serviceIds.has(serviceId)) return undefined
      return getOrAdd(
        services.getOrAdd(format, view, () => new Map()),
        serviceId,
        () => new ServedDocument(renderer.renderService!(catalog, view, serviceId)),
      )
    },
  }
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
