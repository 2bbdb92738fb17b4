import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'

/** A small OpenAPI 3.1 service whose tools are `<service>:op<N>` for each N in `operations`. */
export function serviceSpec(operations: readonly number[], upstream = 'http://127.0.0.1:9') {
  const paths: Record<string, unknown> = {}
  for (const n of operations)
    paths[`/op${n}`] = {
      get: { operationId: `op${n}`, summary: `Operation ${n}`, responses: { '200': { description: 'ok' } } },
    }
  return stringify({
    openapi: '3.1.0',
    info: { title: 'Reload test', version: '1.0.0' },
    servers: [{ url: upstream }],
    paths,
  })
}

/** A fresh temporary directory, removed after the test. */
export async function tempDir(t: { after(fn: () => Promise<unknown>): void }, prefix = 'toolgate-specs-') {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * A specs directory laid out the way the kubelet mounts a ConfigMap: `..<timestamp>/` holds the
 * files, `..data -> ..<timestamp>`, and every `name -> ..data/name`. `swap` replaces the content
 * like the kubelet's AtomicWriter: new timestamped directory, `..data_tmp` link, rename over
 * `..data`, old directory removed.
 */
export async function configMapDir(dir: string, files: Record<string, string>) {
  let generation = 0
  let current = ''
  const writeGeneration = async (content: Record<string, string>) => {
    generation += 1
    const name = `..2026_11_22_00_00_0${generation}.${process.pid}`
    await mkdir(join(dir, name))
    for (const [file, text] of Object.entries(content)) await writeFile(join(dir, name, file), text)
    return name
  }
  current = await writeGeneration(files)
  await symlink(current, join(dir, '..data'))
  for (const file of Object.keys(files)) await symlink(join('..data', file), join(dir, file))
  return {
    async swap(content: Record<string, string>) {
      const next = await writeGeneration(content)
      await symlink(next, join(dir, '..data_tmp'))
      await rename(join(dir, '..data_tmp'), join(dir, '..data'))
      await rm(join(dir, current), { recursive: true, force: true })
      current = next
    },
  }
}
