import type { Catalog } from '../catalog/types.js'
import { ServedDocument } from './served-document.js'

/** A protocol renderer as the snapshot sees it: a view in, the served document out. */
export interface ViewRenderer {
  readonly format: string
  render(catalog: Catalog, viewName: string): unknown
  /** Formats served per service too (`/openai/:service.json`). */
  renderService?(catalog: Catalog, viewName: string, serviceId: string): unknown
}

export interface ServedSize {
  readonly bytes: number
  readonly tools: number
}

/** format → view → document. */
export type ViewDocuments = Readonly<Record<string, Readonly<Record<string, ServedDocument>>>>

/** Every view in every format, rendered and serialized once per catalog version. */
export function renderViews(catalog: Catalog, renderers: readonly ViewRenderer[]): ViewDocuments {
  const documents: Record<string, Record<string, ServedDocument>> = {}
  for (const renderer of renderers) {
    documents[renderer.format] = {}
    for (const view of Object.keys(catalog.views)) {
      documents[renderer.format]![view] = new ServedDocument(renderer.render(catalog, view))
    }
  }
  return documents
}

/**
 * Per view and format, the bytes an agent is served and how many tools that is (SPEC §1): the
 * context budget a view costs.
 */
export function measureViews(
  catalog: Catalog,
  documents: ViewDocuments,
): Record<string, Record<string, ServedSize>> {
  const sizes: Record<string, Record<string, ServedSize>> = {}
  for (const [view, { toolIds }] of Object.entries(catalog.views)) {
    sizes[view] = {}
    for (const [format, byView] of Object.entries(documents)) {
      sizes[view][format] = { bytes: byView[view]?.body.length ?? 0, tools: toolIds.length }
    }
  }
  return sizes
}
