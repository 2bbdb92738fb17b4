import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { SourceReader } from './load-sources.js'

/**
 * The disk-backed SourceReader. Links are followed, so Kubernetes' ConfigMap layout
 * (`spec.yaml -> ..data/spec.yaml`) reads like plain files; dot-entries (`..data`) are skipped.
 */
export const fsSourceReader: SourceReader = {
  async listFiles(dir) {
    const entries = await readdir(dir, { withFileTypes: true })
    const names: string[] = []
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      if (entry.isFile() || (entry.isSymbolicLink() && (await isFile(join(dir, entry.name)))))
        names.push(entry.name)
    }
    return names.sort()
  },
  readText: (path) => readFile(path, 'utf8'),
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile()
  } catch {
    return false
  }
}
