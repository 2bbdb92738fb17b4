import { readFileSync } from 'node:fs'
import { fsSourceReader, type LoadResult, loadSpecsDirectory } from '../../src/catalog/index.js'
import { fromRoot } from './paths.js'

/** The real-world corpus (test/fixtures/real-world, listed in its index.json). */
export const REAL_WORLD_DIR = fromRoot('test', 'fixtures', 'real-world')

/** The corpus's spec files, in index order. */
export function realWorldFiles(): string[] {
  return (JSON.parse(readFileSync(`${REAL_WORLD_DIR}/index.json`, 'utf8')) as { file: string }[]).map(
    (entry) => entry.file,
  )
}

/** One fixture loaded alone, as its own specs directory would be. */
export function loadFixture(file: string): Promise<LoadResult> {
  return loadSpecsDirectory(REAL_WORLD_DIR, {
    listFiles: async () => [file],
    readText: fsSourceReader.readText,
  })
}
