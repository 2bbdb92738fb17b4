import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { BENCH_ACCESS } from './context.js'
import { fromRoot } from './paths.js'

export const ITEMS_SPEC = fromRoot('bench', 'specs', 'items.yaml')
export const ITEMS_TOOL_ID = 'items:getItem'

/** A specs directory holding only bench/specs/items.yaml, and a YAML configuration beside it. */
export async function itemsSetup(tmp: string, name: string, config: string, access = BENCH_ACCESS) {
  const dir = join(tmp, name)
  const specs = join(dir, 'specs')
  await mkdir(specs, { recursive: true })
  await copyFile(ITEMS_SPEC, join(specs, 'items.yaml'))
  return { specs, configFile: await benchConfig(dir, `${access}${config}`) }
}

/** The gateway's TOOLGATE_CONFIG in `dir`: the bench's access block unless `yaml` brings its own. */
export async function benchConfig(dir: string, yaml = BENCH_ACCESS): Promise<string> {
  await mkdir(dir, { recursive: true })
  const file = join(dir, 'toolgate.yaml')
  await writeFile(file, yaml)
  return file
}
