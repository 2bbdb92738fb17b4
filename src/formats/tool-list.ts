import type { Catalog, JsonSchema } from '../catalog/types.js'

export interface ListedTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchema
}

/** The plain tool list of a view: wire name, description and the canonical input schema. */
export function renderToolList(catalog: Catalog, viewName: string): ListedTool[] {
  const view = catalog.views[viewName]
  if (!view) return []
  const byId = new Map(catalog.tools.map((tool) => [tool.id, tool]))
  return view.toolIds.map((id) => {
    const tool = byId.get(id)!
    return { name: tool.wireName, description: tool.description, inputSchema: tool.inputSchema }
  })
}
