import type { Catalog, Service, Tool } from '../catalog/index.js'
import type { GatewayConfig } from '../config/load-config.js'
import { type ArgumentValidator, createArgumentValidator } from '../executor/index.js'
import {
  createViewRenderers,
  type RenderOptions,
  renderViews,
  ServedDocument,
  type ServedSize,
  type ViewDocuments,
} from '../formats/index.js'
import { PACKAGE_VERSION } from '../version.js'
import type { ReloadRecord } from './types.js'

/** One catalog version and everything derived from it, built once and swapped as a whole. */
export interface CatalogSnapshot {
  readonly catalog: Catalog
  readonly loadedAt: string
  /** The reload that produced this version; absent for the one built at start. */
  readonly reload?: ReloadRecord
  /** Each view in each format as served (bytes, ETag, compressed variants), and their sizes. */
  readonly documents: ViewDocuments
  /** Per view and format: bytes served and tool count. */
  readonly sizes: Readonly<Record<string, Readonly<Record<string, ServedSize>>>>
  /** GET /catalog, rendered on its first request: for 1,000 tools it weighs ~30 MB. */
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

export function buildSnapshot(
  catalog: Catalog,
  loadedAt: Date,
  render: RenderOptions,
  reload?: ReloadRecord,
): CatalogSnapshot {
  const renderers = createViewRenderers(render)
  const documents = renderViews(catalog, renderers)
  const { sizes } = documents
  let catalogDocument: ServedDocument | undefined
  const callable = new Map<string, Tool>()
  for (const tool of catalog.tools) {
    if (tool.ignored) continue
    callable.set(tool.wireName, tool)
    callable.set(tool.id, tool)
  }
  const services = new Map(catalog.services.map((service) => [service.id, service]))
  const byFormat = new Map(renderers.map((renderer) => [renderer.format, renderer]))
  const perService = new Map<string, ServedDocument>()
  const serviceDocument = (format: string, view: string, serviceId: string) => {
    const renderer = byFormat.get(format)
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
    ...(reload ? { reload } : {}),
    get catalogDocument() {
      catalogDocument ??= new ServedDocument({
        ...catalog,
        loadedAt: loadedAt.toISOString(),
        sizes,
        ...(reload ? { lastReload: reload } : {}),
      })
      return catalogDocument
    },
    findTool: (name: string) => callable.get(name),
    serviceDocument,
    findService: (name: string) =>
      services.get(name) ?? catalog.services.find((service) => service.alias === name),
    serviceOf: (tool: Tool) => services.get(tool.serviceId)!,
    validator: createArgumentValidator(),
  })
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
