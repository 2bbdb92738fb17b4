import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { EXAMPLE_UPSTREAM_DEFAULTS, startExampleUpstream } from '../../examples/upstream/server.js'
import { buildApp } from '../../src/app.js'
import type { SourceReader } from '../../src/catalog/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { fromRoot } from './paths.js'

/** A TOOLGATE_CONFIG file holding `yaml`, in a fresh temporary directory. */
export async function configFile(yaml: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'toolgate-')), 'gw.yaml')
  await writeFile(file, yaml)
  return file
}

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

/** The app over the shipped specs, logging at info into `lines` (as production logs); closed after the test. */
export async function loggedApp(
  t: { after(fn: () => Promise<unknown>): void },
  lines: string[],
  env: Record<string, string> = {},
): Promise<FastifyInstance> {
  const config = await loadConfig({ SPECS_DIR: fromRoot('specs'), LOG_LEVEL: 'info', ...env }, (path) =>
    readFile(path, 'utf8'),
  )
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const app = await buildApp({ config, logger: { level: 'info', stream } })
  t.after(() => app.close())
  return app
}

/** A TOOLGATE_CONFIG for the shipped specs against the example upstream at `url`, as a deployment writes it. */
export function exampleConfigYaml(url: string, extraYaml = ''): string {
  return [
    'services:',
    '  tickets:',
    `    upstream: ${url}/tickets`,
    '    credentials:',
    `      apiKeyAuth: { value: ${EXAMPLE_UPSTREAM_DEFAULTS.apiKey} }`,
    `      bearerAuth: { value: ${EXAMPLE_UPSTREAM_DEFAULTS.bearerToken} }`,
    '  billing:',
    `    upstream: ${url}/billing`,
    '    credentials:',
    `      basicAuth: { username: ${EXAMPLE_UPSTREAM_DEFAULTS.basicUser}, password: { value: ${EXAMPLE_UPSTREAM_DEFAULTS.basicPassword} } }`,
    extraYaml,
  ].join('\n')
}

/**
 * The app over the shipped specs with the example upstream running and configured the way a
 * deployment would: upstream URLs and demo credentials in a TOOLGATE_CONFIG file.
 */
export async function exampleApp(
  t: { after(fn: () => Promise<unknown>): void },
  extraYaml = '',
  env: Record<string, string> = {},
) {
  const upstream = await startExampleUpstream()
  t.after(() => upstream.close())
  const file = await configFile(exampleConfigYaml(upstream.url, extraYaml))
  const app = await testApp(t, { TOOLGATE_CONFIG: file, ...env })
  return { app, upstream }
}
