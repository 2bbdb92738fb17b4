import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fromRoot } from './paths.js'

export const ITEMS_SPEC = fromRoot('bench', 'specs', 'items.yaml')
export const ITEMS_TOOL_ID = 'items:getItem'

/** A specs directory holding only bench/specs/items.yaml, and a YAML configuration beside it. */
export async function itemsSetup(tmp: string, name: string, config: string) {
  const dir = join(tmp, name)
  const specs = join(dir, 'specs')
  await mkdir(specs, { recursive: true })
  await copyFile(ITEMS_SPEC, join(specs, 'items.yaml'))
  const configFile = join(dir, 'toolgate.yaml')
  await writeFile(configFile, config)
  return { specs, configFile }
}
