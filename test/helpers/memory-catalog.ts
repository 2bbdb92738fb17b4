import { stringify } from 'yaml'
import {
  buildCatalog,
  type Catalog,
  type CatalogOptions,
  loadSpecsDirectory,
  type SourceReader,
} from '../../src/catalog/index.js'

export const MEMORY_DIR = '/specs'

/** A SourceReader over in-memory files; values that are not strings are written as YAML or JSON. */
export function memoryReader(files: Record<string, unknown>): SourceReader {
  const texts = new Map(
    Object.entries(files).map(([name, value]) => [
      `${MEMORY_DIR}/${name}`,
      typeof value === 'string' ? value : name.endsWith('.json') ? JSON.stringify(value) : stringify(value),
    ]),
  )
  return {
    listFiles: async (dir) =>
      [...texts.keys()]
        .filter((path) => path.startsWith(`${dir}/`) && !path.slice(dir.length + 1).includes('/'))
        .map((path) => path.slice(dir.length + 1))
        .sort(),
    readText: async (path) => {
      const text = texts.get(path)
      if (text === undefined) throw new Error(`ENOENT: no such file ${path}`)
      return text
    },
  }
}

/** Builds the catalog of in-memory spec files. */
export async function catalogOf(
  files: Record<string, unknown>,
  options: CatalogOptions = {},
): Promise<Catalog> {
  return buildCatalog(await loadSpecsDirectory(MEMORY_DIR, memoryReader(files)), options)
}

/** A minimal OpenAPI 3.1 document around the given paths (and optional extra members). */
export function openapi(paths: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { openapi: '3.1.0', info: { title: 'Test API', version: '1.0.0' }, paths, ...extra }
}

export const ok = { '200': { description: 'ok' } }

export function toolById(catalog: Catalog, id: string) {
  const tool = catalog.tools.find((t) => t.id === id)
  if (!tool) throw new Error(`no tool ${id}; tools: ${catalog.tools.map((t) => t.id).join(', ')}`)
  return tool
}

export function problemsOf(catalog: Catalog, code: string) {
  return catalog.problems.filter((problem) => problem.code === code)
}
