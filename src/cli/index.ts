#!/usr/bin/env node
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { ConfigError, catalogOptions, loadConfig } from '../config/load-config.js'
import { serve } from '../server.js'
import { PACKAGE_VERSION } from '../version.js'
import { lint } from './lint.js'

const USAGE = `toolgate ${PACKAGE_VERSION} — OpenAPI descriptions as tools for AI agents

Usage:
  toolgate [serve]            start the gateway (PORT, HOST, SPECS_DIR, TOOLGATE_CONFIG …)
  toolgate lint [dir]         build the catalog of dir (default SPECS_DIR or ./specs), print its
                              problems; exit 1 on any error
  toolgate --version | --help
`

async function main(argv: readonly string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
  })
  if (values.help) return print(USAGE, 0)
  if (values.version) return print(PACKAGE_VERSION, 0)
  const [command = 'serve', ...rest] = positionals
  if (command === 'serve') {
    await serve(process.env)
    return -1 // keeps running
  }
  if (command === 'lint') {
    const config = await loadConfig(process.env, (path) => readFile(path, 'utf8'))
    return lint(rest[0] ?? config.specsDir, catalogOptions(config), (line) =>
      process.stdout.write(`${line}\n`),
    )
  }
  return print(`toolgate: unknown command ${command}\n\n${USAGE}`, 2, process.stderr)
}

function print(text: string, code: number, stream: NodeJS.WritableStream = process.stdout): number {
  stream.write(text.endsWith('\n') ? text : `${text}\n`)
  return code
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (err: unknown) => {
    const message = err instanceof ConfigError || err instanceof TypeError ? err.message : String(err)
    process.stderr.write(`toolgate: ${message}\n`)
    process.exitCode = 2
  },
)
