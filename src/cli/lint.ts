import { fsSourceReader, loadCatalog, type SourceReader } from '../catalog/index.js'
import type { CatalogOptions } from '../catalog/options.js'
import type { Catalog, Problem } from '../catalog/types.js'
import {
  type Budgets,
  type BudgetWarning,
  checkBudgets,
  createViewRenderers,
  DEFAULT_BUDGETS,
  type RenderOptions,
  renderEager,
} from '../formats/index.js'

export interface LintOptions {
  readonly budgets?: Budgets
  /** How the views are rendered for their sizes (the Opal name and auth requirements). */
  readonly render?: RenderOptions
}

const DEFAULT_RENDER: RenderOptions = { opal: { name: 'toolgate', version: '0', authRequirements: {} } }

/**
 * `toolgate lint [dir]`: build the catalog, print its problems and the views over a budget
 * (warnings, YAML `budgets`); exit 1 on any error (SPEC §7).
 */
export async function lint(
  dir: string,
  options: CatalogOptions,
  write: (line: string) => void,
  reader: SourceReader = fsSourceReader,
  { budgets = DEFAULT_BUDGETS, render = DEFAULT_RENDER }: LintOptions = {},
): Promise<number> {
  const catalog = await loadCatalog(dir, reader, options)
  for (const problem of catalog.problems) write(formatProblem(problem))
  const { sizes } = renderEager(catalog, createViewRenderers(render))
  const overBudget = checkBudgets(sizes, budgets)
  for (const warning of overBudget) write(formatBudgetWarning(warning))
  write(summary(dir, catalog, overBudget.length))
  return catalog.problems.some((problem) => problem.severity === 'error') ? 1 : 0
}

/** `view <name> (<format>)  warning  <code>  <message>`: a view is not a file, so it is named instead. */
export function formatBudgetWarning(warning: BudgetWarning): string {
  return `view ${warning.view} (${warning.format})  warning  ${warning.code}  ${warning.message}`
}

export function formatProblem(problem: Problem): string {
  const where = problem.pointer ? `${problem.file}#${problem.pointer}` : problem.file
  return `${where}  ${problem.severity}  ${problem.code}  ${problem.message}`
}

function summary(dir: string, catalog: Catalog, overBudget: number): string {
  const errors = catalog.problems.filter((p) => p.severity === 'error').length
  const warnings = catalog.problems.length - errors + overBudget
  const failed = catalog.sources.filter((s) => s.status === 'failed').map((s) => s.sourceId)
  const lines = [
    `${dir}: ${catalog.sources.length} source(s), ${catalog.services.length} service(s), ${catalog.tools.length} tool(s), ${catalog.workflows.length} workflow(s); catalog version ${catalog.version}`,
    `${errors} error(s), ${warnings} warning(s)${failed.length > 0 ? `; failed sources: ${failed.join(', ')}` : ''}`,
  ]
  return lines.join('\n')
}
