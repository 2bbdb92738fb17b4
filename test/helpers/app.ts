import { readFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import type { SourceReader } from '../../src/catalog/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { fromRoot } from './paths.js'

/** The app over the shipped specs (or a test's reader), logging silenced; closed after the test. */
export async function testApp(
  t: { after(fn: () => Promise<unknown>): void },
  env: Record<string, string> = {},
  reader?: SourceReader,
): Promise<FastifyInstance> {
  const config = await loadConfig({ SPECS_DIR: fromRoot('specs'), LOG_LEVEL: 'silent', ...env }, (path) =>
    readFile(path, 'utf8'),
  )
  const app = await buildApp({ config, ...(reader ? { reader } : {}) })
  t.after(() => app.close())
  return app
}
