import { shippedRuntime } from '../../bench/lib/shipped.js'
export interface Instruction {
  readonly keyword: string
  readonly args: string
  /** 1-based line of the instruction's first line. */
  readonly line: number
}

export interface Stage {
  readonly name?: string
  readonly image: string
  readonly instructions: readonly Instruction[]
}

/** Instructions by build stage; continuation lines joined, comments dropped. */
export function parseDockerfile(text: string): Stage[] {
  const instructions: Instruction[] = []
  let pending = ''
  let start = 0
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim()
    if (line.startsWith('#') || (line === '' && pending === '')) continue
    if (pending === '') start = index + 1
    pending += `${line.replace(/\\$/, '')} `
    if (line.endsWith('\\')) continue
    const [keyword = '', ...rest] = pending.trim().split(/\s+/)
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: start })
    pending = ''
  }
  const stages: { name?: string; image: string; instructions: Instruction[] }[] = []
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.replace(/--\S+\s+/g, '').split(/\s+/)
      stages.push({ image, instructions: [], ...(as?.toUpperCase() === 'AS' && name ? { name } : {}) })
    } else stages.at(-1)?.instructions.push(instruction)
  }
  return stages
}

const TS_LOADERS =
  /\b(tsx|ts-node|--loader|--experimental-strip-types|--experimental-transform-types)\b|\.ts\b/

/** SPEC §6: multi-stage, non-root, a health check, compiled JS only, no dev dependencies. */
export function checkDockerfilePolicy(text: string, file = 'Dockerfile'): string[] {
  const stages = parseDockerfile(text)
  const final = stages.at(-1)
  if (!final) return [`${file}: no FROM`]
  const problems: string[] = []
  const at = (i: Instruction) => `${file}:${i.line}`
  if (stages.length < 2)
    problems.push(`${file}: not multi-stage (build and runtime should be separate stages)`)
  for (const stage of stages)
    if (!/:[^/:]+$/.test(stage.image) || stage.image.endsWith(':latest'))
      problems.push(`${file}: FROM ${stage.image} is not pinned to a tag`)
  const find = (keyword: string) => final.instructions.filter((i) => i.keyword === keyword)
  const user = find('USER').at(-1)
  if (!user || /^(root|0)(:|$)/.test(user.args))
    problems.push(`${file}: the final stage runs as root (no USER, or USER root)`)
  const healthcheck = find('HEALTHCHECK').at(-1)
  if (!healthcheck || /^NONE$/i.test(healthcheck.args))
    problems.push(`${file}: the final stage has no HEALTHCHECK`)
  const cmd = find('CMD').at(-1)
  const command = cmd ? execForm(cmd.args) : undefined
  if (!cmd || !command) problems.push(`${file}: the final stage needs a CMD in exec form (JSON array)`)
  else if (command[0] !== 'node' || !command.some((arg) => /^dist\/.+\.js$/.test(arg)))
    problems.push(`${at(cmd)}: CMD must run compiled JavaScript with node (dist/….js), not ${cmd.args}`)
  for (const i of [...find('CMD'), ...find('ENTRYPOINT')])
    if (TS_LOADERS.test(i.args)) problems.push(`${at(i)}: ${i.keyword} uses a TypeScript loader: ${i.args}`)
  if (!find('ENV').some((i) => /\bNODE_ENV=production\b/.test(i.args)))
    problems.push(`${file}: the final stage does not set NODE_ENV=production`)
  problems.push(...checkDependencies(stages, final, file))
  return problems
}

/** node_modules in the final image come from a stage that dropped the dev dependencies. */
function checkDependencies(stages: readonly Stage[], final: Stage, file: string): string[] {
  const problems: string[] = []
  for (const i of final.instructions) {
    if (
      i.keyword === 'RUN' &&
      /\bnpm (ci|install|i)\b/.test(i.args) &&
      !/--omit=dev|--production/.test(i.args)
    )
      problems.push(`${file}:${i.line}: the final stage installs dev dependencies: ${i.args}`)
    if (i.keyword !== 'COPY') continue
    const from = /--from=(\S+)/.exec(i.args)?.[1]
    const sources = i.args
      .replace(/--\S+\s+/g, '')
      .split(/\s+/)
      .slice(0, -1)
    if (!from && sources.some((s) => /^(\.\/)?(src|test|tsconfig[^/]*\.json)\b/.test(s)))
      problems.push(`${file}:${i.line}: the final stage copies TypeScript sources: ${i.args}`)
    if (!from || !sources.some((s) => s.includes('node_modules'))) continue
    const stage = stages.find((s) => s.name === from)
    const runs = stage?.instructions.filter((r) => r.keyword === 'RUN').map((r) => r.args) ?? []
    const lastInstall = runs.findLastIndex((r) => /\bnpm (ci|install|i)\b/.test(r))
    const pruned = runs.slice(lastInstall).some((r) => /npm prune --omit=dev|--omit=dev|--production/.test(r))
    if (!pruned)
      problems.push(`${file}:${i.line}: node_modules comes from stage ${from}, which keeps dev dependencies`)
  }
  return problems
}

function execForm(args: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(args)
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined
  } catch {
    return undefined
  }
}

/** The npm install command(s) a Dockerfile runs, each as npm's arguments. */
export function npmInstallCommands(text: string): string[][] {
  return parseDockerfile(text)
    .flatMap((stage) => stage.instructions)
    .filter((i) => i.keyword === 'RUN')
    .flatMap((i) => i.args.split(/&&|;/))
    .map((part) => part.trim().split(/\s+/))
    .filter(
      ([npm, command]) => npm === 'npm' && (command === 'ci' || command === 'install' || command === 'i'),
    )
    .map((words) => words.slice(1))
}

/** The Dockerfile's COPY sources from the build context (not from another stage). */
export function contextSources(text: string): string[] {
  return parseDockerfile(text)
    .flatMap((stage) => stage.instructions)
    .filter((i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !i.args.includes('--from='))
    .flatMap((i) =>
      i.args
        .replace(/--\S+\s+/g, '')
        .split(/\s+/)
        .slice(0, -1),
    )
}

/**
 * Whether .dockerignore leaves a path out of the build context (its patterns are Go
 * filepath.Match globs from the context root; a match on a directory covers what is under it;
 * the last matching line wins, `!` re-includes).
 */
export function isDockerIgnored(dockerignore: string, path: string): boolean {
  let ignored = false
  const target = path.replace(/^\.\//, '').replace(/\/$/, '')
  for (const raw of dockerignore.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const negated = line.startsWith('!')
    const pattern = (negated ? line.slice(1) : line).replace(/^\//, '').replace(/\/$/, '')
    const source = pattern
      .split('**')
      .map((part) =>
        part
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replaceAll('*', '[^/]*')
          .replaceAll('?', '[^/]'),
      )
      .join('.*')
    if (new RegExp(`^${source}(/.*)?$`).test(target)) ignored = !negated
  }
  return ignored
}

/**
 * Where `npm start` (package.json's start script: `VAR=value … node <flags…> <script> …`) runs the
 * gateway otherwise than the image does, as the bench reads the image (bench/lib/shipped.ts): other
 * node flags (V8's young generation, issue 20), or another value of an allocator variable
 * (`MALLOC_*`) the Dockerfile sets.
 */
export function startMismatches(dockerfile: string, startScript: string): string[] {
  const image = shippedRuntime(dockerfile)
  const words = startScript.trim().split(/\s+/)
  const node = words.indexOf('node')
  if (node < 0) return [`start "${startScript}" runs no node`]
  const script = words.findIndex((word, i) => i > node && !word.startsWith('-'))
  const problems: string[] = []
  const imageFlags = image.nodeFlags.join(' ')
  const startFlags = words.slice(node + 1, script < 0 ? undefined : script).join(' ')
  if (imageFlags !== startFlags)
    problems.push(`node flags: the image's CMD has "${imageFlags}", npm start "${startFlags}"`)
  const startEnv = new Map(words.slice(0, node).map((word) => word.split('=') as [string, string]))
  const imageEnv = Object.entries(image.env)
  if (imageEnv.length === 0) problems.push('the Dockerfile sets no MALLOC_* variable')
  for (const [name, value] of imageEnv)
    if (startEnv.get(name) !== value)
      problems.push(`${name}: the image sets ${value}, npm start ${startEnv.get(name) ?? 'nothing'}`)
  return problems
}
