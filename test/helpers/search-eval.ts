// Issue 43: the search evaluation set (test/fixtures/search-eval), its halves and its measures.
// Tasks are written as users ask an agent, over twelve big real-world fixtures in one catalog;
// each lists every operation that does the job. Even positions of each file are the half we tune
// on, odd positions the held-out half, which no ranking change may be tuned on.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Catalog, Tool, ToolSearchIndex } from '../../src/catalog/index.js'
import { fromRoot } from './paths.js'

export const EVAL_DIR = fromRoot('test', 'fixtures', 'search-eval')

export type Half = 'tune' | 'held-out'

export interface EvalTask {
  readonly query: string
  readonly expected: readonly string[]
  /** The fixture (and so the API) the task is about. */
  readonly fixture: string
  readonly half: Half
}

/** Every task of every file, with its half. */
export function loadEvalTasks(): EvalTask[] {
  return readdirSync(EVAL_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .flatMap((name) => {
      const { fixture, tasks } = JSON.parse(readFileSync(join(EVAL_DIR, name), 'utf8')) as {
        fixture: string
        tasks: { query: string; expected: string[] }[]
      }
      return tasks.map((task, i) => ({ ...task, fixture, half: (i % 2 === 0 ? 'tune' : 'held-out') as Half }))
    })
}

/** The fixtures the tasks are about: loaded together into one catalog. */
export function evalFixtures(tasks: readonly EvalTask[]): string[] {
  return [...new Set(tasks.map((task) => task.fixture))].sort()
}

/**
 * Words as a reader counts them, independent of the ranker's own tokenizer, synonyms and stems:
 * split on anything not a letter or digit and on camelCase, lower case, a crude plural and
 * tense fold, common words out.
 */
const STOP = new Set(
  (
    'a an the and or of to in on for by with from at as is are be it its this that these those my me i you your ' +
    'we our us they them their he she his her him what which who whom whose when where why how all any some no ' +
    'not do does did done can could should would will shall may might must have has had get got make made please ' +
    'want need let show give tell find see set put take new one two up out into over about than then so just ' +
    'also only very there here if but else per via'
  ).split(' '),
)
export function contentWords(text: string): Set<string> {
  return new Set(
    text
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 1 && !STOP.has(word))
      .map((word) => word.replace(/(ies|es|s|ed|ing)$/, '')),
  )
}

/** Whether the task shares no content word with any expected operation's id or summary. */
export function sharesNoWord(task: EvalTask, byId: ReadonlyMap<string, Tool>): boolean {
  const asked = contentWords(task.query)
  return task.expected.every((id) => {
    const tool = byId.get(id)
    if (!tool) return true
    const named = contentWords(`${tool.operationId ?? id.split(':').slice(1).join(':')} ${tool.title}`)
    return ![...named].some((word) => asked.has(word))
  })
}

export interface Measure {
  readonly tasks: number
  readonly recallAt5: number
  readonly recallAt10: number
  readonly mrr: number
}

export interface TaskResult {
  readonly task: EvalTask
  readonly noSharedWord: boolean
  /** Rank of the first expected tool in the top 10 (0-based), or -1. */
  readonly rank: number
  readonly top: readonly string[]
}

/** Ranks every task with `search`; the measures are then cut by half, API and word sharing. */
export function runEval(
  catalog: Catalog,
  tasks: readonly EvalTask[],
  search: ToolSearchIndex['search'],
): TaskResult[] {
  const byId = new Map(catalog.tools.map((tool) => [tool.id, tool]))
  return tasks.map((task) => {
    const top = search(task.query, { limit: 10 }).map((match) => match.tool.id)
    return {
      task,
      noSharedWord: sharesNoWord(task, byId),
      rank: top.findIndex((id) => task.expected.includes(id)),
      top,
    }
  })
}

export function measure(results: readonly TaskResult[]): Measure {
  const n = results.length || 1
  const within = (k: number) => results.filter((r) => r.rank >= 0 && r.rank < k).length / n
  return {
    tasks: results.length,
    recallAt5: within(5),
    recallAt10: within(10),
    mrr: results.reduce((sum, r) => sum + (r.rank >= 0 ? 1 / (r.rank + 1) : 0), 0) / n,
  }
}

/** The report: each half overall, per API and for the tasks that share no word. */
export function report(results: readonly TaskResult[]) {
  const halves = ['tune', 'held-out', 'all'] as const
  return Object.fromEntries(
    halves.map((half) => {
      const mine = results.filter((r) => half === 'all' || r.task.half === half)
      const apis = [...new Set(mine.map((r) => r.task.fixture))].sort()
      return [
        half,
        {
          overall: measure(mine),
          noSharedWord: measure(mine.filter((r) => r.noSharedWord)),
          perApi: Object.fromEntries(
            apis.map((api) => [
              api.replace(/\.(json|ya?ml)$/, ''),
              measure(mine.filter((r) => r.task.fixture === api)),
            ]),
          ),
        },
      ]
    }),
  ) as Record<
    (typeof halves)[number],
    { overall: Measure; noSharedWord: Measure; perApi: Record<string, Measure> }
  >
}
