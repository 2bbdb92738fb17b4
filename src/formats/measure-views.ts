import type { Catalog } from '../catalog/types.js'

/** A protocol renderer as the size report sees it: a view in, the served document out. */
export interface ViewRenderer {
  readonly format: string
  render(catalog: Catalog, viewName: string): unknown
}

export interface ServedSize {
  readonly bytes: number
  readonly tools: number
}

/**
 * Per view and format, the bytes an agent is served and how many tools that is (SPEC §1): the
 * context budget a view costs. Computed once per catalog version.
 */
export function measureViews(
  catalog: Catalog,
  renderers: readonly ViewRenderer[],
): Record<string, Record<string, ServedSize>> {
  const sizes: Record<string, Record<string, ServedSize>> = {}
  for (const [name, view] of Object.entries(catalog.views)) {
    sizes[name] = {}
    for (const renderer of renderers) {
      const bytes = Buffer.byteLength(JSON.stringify(renderer.render(catalog, name)))
      sizes[name][renderer.format] = { bytes, tools: view.toolIds.length }
    }
  }
  return sizes
}
