// Row 4: building the catalog of GitHub's REST API description with toolgate's compiled core
// against @samchon/openapi composing LLM function schemas from the same file; each build in its
// own process, the two interleaved, time and peak RSS reported.
import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { BuildResult } from '../catalog-build/result.js'
import type { RowContext } from '../lib/context.js'
import { benchScript, fromRoot } from '../lib/paths.js'
import { spawnNode } from '../lib/processes.js'
import { ms, type RowResult, rangeOf } from '../lib/report.js'
import { round, summarize } from '../lib/stats.js'

const GITHUB = fromRoot('node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json')

interface Builder {
  readonly label: string
  readonly script: string
  readonly args: (dir: string, file: string) => string[]
}

const BUILDERS: readonly Builder[] = [
  { label: 'toolgate loadCatalog', script: 'toolgate.js', args: (dir) => [dir] },
  { label: '@samchon/openapi HttpLlm.application', script: 'samchon.js', args: (_dir, file) => [file] },
  { label: 'toolgate loadCatalog + OpenAI render', script: 'toolgate.js', args: (dir) => [dir, 'render'] },
]

async function build(builder: Builder, dir: string, file: string, cpus: string | undefined) {
  const child = spawnNode(benchScript('catalog-build', builder.script), builder.args(dir, file), { cpus })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`${builder.label} exited with ${code}:\n${stderr}`)
  return JSON.parse(stdout) as BuildResult
}

export async function catalogBuildRows(ctx: RowContext): Promise<RowResult[]> {
  const dir = join(ctx.tmp, 'github')
  await mkdir(dir, { recursive: true })
  const file = join(dir, 'api.github.com.json')
  await copyFile(GITHUB, file)
  const results: BuildResult[][] = BUILDERS.map(() => [])
  ctx.log('row 4: catalog builds of api.github.com.json (one warm-up each, for the page cache)')
  for (const builder of BUILDERS) await build(builder, dir, file, ctx.cpus.server)
  for (let i = 0; i < ctx.options.runs; i++) {
    for (let j = 0; j < BUILDERS.length; j++) {
      const k = (i + j) % BUILDERS.length
      results[k]!.push(await build(BUILDERS[k]!, dir, file, ctx.cpus.server))
    }
  }
  const [ours, theirs, rendered] = results as [BuildResult[], BuildResult[], BuildResult[]]
  const ratio = summarize(ours.map((r, i) => r.ms / theirs[i]!.ms))
  const time = (runs: BuildResult[]) => summarize(runs.map((r) => r.ms)).median
  const rss = (runs: BuildResult[]) => summarize(runs.map((r) => r.peakRssMb)).median
  const cell = (runs: BuildResult[], unit: string) =>
    `${ms(time(runs))}, ${rss(runs).toFixed(0)} MB peak, ${runs[0]!.tools} ${unit}`
  return [
    {
      id: '4',
      row: 'catalog',
      figure: `catalog build of api.github.com.json (${ours[0]!.tools} operations)`,
      metric: 'time ratio',
      value: round(ratio.median, 3),
      target: { op: '<=', value: 0.6 },
      candidate: cell(ours, 'tools'),
      baseline: `${cell(theirs, 'functions')}, ${theirs[0]!.errors} errors`,
      range: rangeOf(ratio),
      problems: [],
      notes: [
        `toolgate with the OpenAI document rendered as well: ${ms(time(rendered))}, ${rss(rendered).toFixed(0)} MB peak (ratio ${(time(rendered) / time(theirs)).toFixed(2)})`,
      ],
      details: { toolgate: ours, samchon: theirs, toolgateWithOpenAIRender: rendered, ratio },
    },
  ]
}
