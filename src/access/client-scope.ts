import type { Catalog, Tool, View } from '../catalog/types.js'
import { globToRegExp, matchesAnyGlob } from '../util/glob.js'
import { memoPerOwner } from '../util/memo.js'
import type { Client } from './types.js'

/** What one client may do with one catalog version. */
export interface ClientScope {
  /**
   * The catalog as this client sees it: every view narrowed to the tools it may call. The very
   * catalog object when it may call them all, so every document cached per catalog is shared.
   */
  readonly catalog: Catalog
  mayCall(tool: Tool): boolean
  mayApprove(tool: Tool): boolean
}

/**
 * The client's scope in this catalog version: its profiles' tools, matching its tool globs;
 * computed on first use and dropped with the version.
 */
export const scopeOf: (catalog: Catalog, client: Client) => ClientScope = memoPerOwner(buildScope)

function buildScope(catalog: Catalog, client: Client): ClientScope {
  const allowed = allowedToolIds(catalog, client)
  const approve = client.approve.map(globToRegExp)
  const callable = catalog.tools.filter((tool) => !tool.ignored).length
  return {
    catalog: allowed.size === callable ? catalog : narrowViews(catalog, allowed),
    mayCall: (tool) => allowed.has(tool.id),
    mayApprove: (tool) => matchesAnyGlob(tool.id, approve) || matchesAnyGlob(tool.wireName, approve),
  }
}

function allowedToolIds(catalog: Catalog, client: Client): Set<string> {
  const globs = client.tools.map(globToRegExp)
  const inProfiles =
    client.profiles && new Set(client.profiles.flatMap((name) => catalog.views[name]?.toolIds ?? []))
  const ids = new Set<string>()
  for (const tool of catalog.tools) {
    if (tool.ignored || (inProfiles && !inProfiles.has(tool.id))) continue
    if (matchesAnyGlob(tool.id, globs) || matchesAnyGlob(tool.wireName, globs)) ids.add(tool.id)
  }
  return ids
}

function narrowViews(catalog: Catalog, allowed: ReadonlySet<string>): Catalog {
  const views: Record<string, View> = Object.create(null) // as the catalog's: no inherited names
  for (const [name, view] of Object.entries(catalog.views))
    views[name] = Object.freeze({
      ...view,
      toolIds: Object.freeze(view.toolIds.filter((id) => allowed.has(id))),
    })
  return Object.freeze({ ...catalog, views: Object.freeze(views) })
}
