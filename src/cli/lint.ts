import { fsSourceReader, loadCatalog, type SourceReader } from '../catalog/index.js'
import type { CatalogOptions } from '../catalog/options.js'
import type { Catalog, Problem } from '../catalog/types.js'

/** `toolgate lint [dir]`: build the catalog, print its problems; exit 1 on any error (SPEC §7). */
export async function lint(
  dir: string,
  options: CatalogOptions,
  write: (line: string) => void,
  reader: SourceReader = fsSourceReader,
): Promise<number> {
  const catalog = await loadCatalog(dir, reader, options)
  for (const problem of catalog.problems) write(formatProblem(problem))
  write(summary(dir, catalog))
  return catalog.problems.some((problem) => problem.severity === 'error') ? 1 : 0
}

export function formatProblem(problem: Problem): string {
  const where = problem.pointer ? `${problem.file}#${problem.pointer}` : problem.file
  return `${where}  ${problem.severity}  ${problem.code}  ${problem.message}`
}

function summary(dir: string, catalog: Catalog): string {
  const errors = catalog.problems.filter((p) => p.severity === 'error').length
  const warnings = catalog.problems.length - errors
  const failed = catalog.sources.filter((s) => s.status === 'failed').map((s) => s.sourceId)
  const lines = [
    `${dir}: ${catalog.sources.length} source(s), ${catalog.services.length} service(s), ${catalog.tools.length} tool(s), ${catalog.workflows.length} workflow(s); catalog version ${catalog.version}`,
    `${errors} error(s), ${warnings} warning(s)${failed.length > 0 ? `; failed sources: ${failed.join(', ')}` : ''}`,
  ]
  return lines.join('\n')
}
