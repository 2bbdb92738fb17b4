import { createContentHasher } from '../util/content-hash.js'
import type { Catalog, Tool } from './types.js'

/** What a reload changed, by tool ID (SPEC §5: each reload logs and exposes its diff). */
export interface CatalogDiff {
  readonly added: readonly string[]
  readonly removed: readonly string[]
  /** Tools present before and after whose definition (schema, description, name, flags…) changed. */
  readonly changed: readonly string[]
}

export function diffCatalogs(before: Catalog, after: Catalog): CatalogDiff {
  const hash = createContentHasher()
  const previous = new Map(before.tools.map((tool) => [tool.id, tool]))
  const current = new Map(after.tools.map((tool) => [tool.id, tool]))
  const changed = (tool: Tool, old: Tool) => tool !== old && hash(tool) !== hash(old)
  return {
    added: [...current.keys()].filter((id) => !previous.has(id)),
    removed: [...previous.keys()].filter((id) => !current.has(id)),
    changed: [...current.values()]
      .filter((tool) => previous.has(tool.id) && changed(tool, previous.get(tool.id)!))
      .map((tool) => tool.id),
  }
}

export function isEmptyDiff(diff: CatalogDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length === 0
}
