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

/** The same diff from a content hash per tool ID, as kept between builds in separate workers. */
export function diffToolHashes(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): CatalogDiff {
  const ids = (from: ReadonlyMap<string, string>, keep: (id: string, hash: string) => boolean) =>
    [...from].filter(([id, hash]) => keep(id, hash)).map(([id]) => id)
  return {
    added: ids(after, (id) => !before.has(id)),
    removed: ids(before, (id) => !after.has(id)),
    changed: ids(after, (id, hash) => before.has(id) && before.get(id) !== hash),
  }
}

export function isEmptyDiff(diff: CatalogDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length === 0
}
