import type { Catalog, Problem, SourceReport } from '../catalog/types.js'
import type { ReloadRecord } from '../store/types.js'

/**
 * One row of the explorer's tool list: what the list shows and filters on, nothing more. Safety is
 * one word (`read`, `write`, `destructive`) so 2,000 rows stay small and filter with one compare.
 */
export interface ToolRow {
  readonly name: string
  readonly title: string
  /** Index into `services`. */
  readonly service: number
  readonly method: string
  readonly path: string
  readonly safety: 'read' | 'write' | 'destructive'
  readonly approval: boolean
  readonly deprecated?: true
  readonly hidden?: true
}

/** The tool list: rows, the services they index, and each profile as indices into the rows. */
export interface ToolList {
  readonly catalogVersion: string
  readonly services: readonly { readonly id: string; readonly alias: string; readonly title: string }[]
  readonly profiles: readonly {
    readonly name: string
    readonly description?: string
    readonly tools: readonly number[]
  }[]
  readonly tools: readonly ToolRow[]
}

/** Every callable tool of a catalog as the list shows it (ignored tools are not served, nor listed). */
export function listTools(catalog: Catalog): ToolList {
  const serviceIndex = new Map(catalog.services.map((service, i) => [service.id, i]))
  const callable = catalog.tools.filter((tool) => !tool.ignored)
  const rowIndex = new Map(callable.map((tool, i) => [tool.id, i]))
  return {
    catalogVersion: catalog.version,
    services: catalog.services.map(({ id, alias, title }) => ({ id, alias, title })),
    profiles: Object.values(catalog.views).map((view) => ({
      name: view.name,
      ...(view.description ? { description: view.description } : {}),
      tools: view.toolIds.flatMap((id) => rowIndex.get(id) ?? []),
    })),
    tools: callable.map((tool) => ({
      name: tool.wireName,
      title: tool.title,
      service: serviceIndex.get(tool.serviceId) ?? -1,
      method: tool.method.toUpperCase(),
      path: tool.rawPath,
      safety: tool.safety.readOnly ? 'read' : tool.safety.destructive ? 'destructive' : 'write',
      approval: tool.safety.requiresApproval,
      ...(tool.deprecated ? { deprecated: true as const } : {}),
      ...(tool.hidden ? { hidden: true as const } : {}),
    })),
  }
}

/** A source file (or remote source) with what it became and what is wrong in it. */
export interface SourceOverview extends SourceReport {
  readonly services: readonly string[]
  readonly problems: readonly Omit<Problem, 'file'>[]
}

/** How many problems of one file are listed; the rest are counted (`/catalog` has them all). */
export const PROBLEMS_PER_SOURCE = 50

/** The overview's catalog part: sources with their services and problems, reloads newest first. */
export function describeSources(catalog: Catalog): SourceOverview[] {
  const problemsOf = new Map<string, Problem[]>()
  for (const problem of catalog.problems) {
    const list = problemsOf.get(problem.file) ?? []
    list.push(problem)
    problemsOf.set(problem.file, list)
  }
  // Errors first: a broken file's reason is what an operator opens the page for.
  const order = (p: Problem) => (p.severity === 'error' ? 0 : 1)
  return catalog.sources.map((source) => ({
    ...source,
    services: catalog.services.filter((s) => s.sourceId === source.sourceId).map((s) => s.id),
    problems: (problemsOf.get(source.sourceId) ?? [])
      .sort((a, b) => order(a) - order(b))
      .slice(0, PROBLEMS_PER_SOURCE)
      .map(({ file: _file, ...problem }) => problem),
  }))
}

/** Reloads newest first, each diff cut to a few IDs (the counts stay whole). */
export function describeReloads(history: readonly ReloadRecord[], count = 10) {
  const ids = (list: readonly string[]) => ({ count: list.length, ids: list.slice(0, 20) })
  return history
    .slice(-count)
    .reverse()
    .map(({ diff, ...record }) => ({
      ...record,
      diff: { added: ids(diff.added), removed: ids(diff.removed), changed: ids(diff.changed) },
    }))
}
