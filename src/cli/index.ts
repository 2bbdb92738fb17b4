#!/usr/bin/env node
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { createFsSourceReader } from '../catalog/fs-reader.js'
import { ConfigError, catalogOptions, loadConfig, specReadLimits } from '../config/load-config.js'
import { DEFAULT_BUDGETS } from '../formats/index.js'
import { serve } from '../server.js'
import { renderOptions } from '../store/snapshot.js'
import { PACKAGE_VERSION } from '../version.js'
import { newToken } from './token.js'

const USAGE = `toolgate ${PACKAGE_VERSION} — OpenAPI descriptions as tools for AI agents

Usage:
  toolgate [serve]            start the gateway (PORT, HOST, SPECS_DIR, TOOLGATE_CONFIG …)
  toolgate lint [dir]         build the catalog of dir (default SPECS_DIR or ./specs), print its
                              problems and the views over a budget (YAML budgets: more than
                              128 OpenAI functions, or budgets.tokens); exit 1 on any error
  toolgate gen openai [--specs dir] [--out dir]
                              write <service>.json, <service>.claude.json, all.json and
                              manifest.json (default out: generated/openai)
  toolgate gen check [--specs dir] [--out dir]
                              exit 1 when the generated files are stale
  toolgate token new [--client ID]
                              print a new client token, then a clients: configuration
                              that admits it (only the token's SHA-256 is in it)
  toolgate --version | --help
`

async function main(argv: readonly string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      specs: { type: 'string' },
      out: { type: 'string' },
      client: { type: 'string' },
    },
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
    const { lint } = await import('./lint.js')
    return lint(
      rest[0] ?? config.specsDir,
      catalogOptions(config),
      (line) => process.stdout.write(`${line}\n`),
      createFsSourceReader(specReadLimits(config)),
      { budgets: { ...DEFAULT_BUDGETS, ...config.file.budgets }, render: renderOptions(config) },
    )
  }
  if (command === 'gen') return gen(rest[0], values.specs, values.out)
  if (command === 'token') return token(rest[0], values.client)
  return print(`toolgate: unknown command ${command}\n\n${USAGE}`, 2, process.stderr)
}

async function gen(
  what: string | undefined,
  specs: string | undefined,
  out: string | undefined,
): Promise<number> {
  // The build code (spec parsing, $ref bundling, upgrades) is loaded only by the commands that build.
  const { DEFAULT_GEN_DIR, genCheck, genOpenAI } = await import('./gen.js')
  out ??= DEFAULT_GEN_DIR
  const config = await loadConfig(process.env, (path) => readFile(path, 'utf8'))
  const dir = specs ?? config.specsDir
  if (what === 'openai') {
    const reader = createFsSourceReader(specReadLimits(config))
    const written = await genOpenAI(dir, out, catalogOptions(config), new Date(), reader)
    return print(`wrote ${written.length} files to ${out}: ${written.join(', ')}`, 0)
  }
  if (what === 'check') {
    const stale = await genCheck(
      dir,
      out,
      catalogOptions(config),
      createFsSourceReader(specReadLimits(config)),
    )
    if (stale.length === 0) return print(`${out} is up to date with ${dir}`, 0)
    return print(`${out} is stale — run npm run gen:openai:\n  ${stale.join('\n  ')}`, 1, process.stderr)
  }
  return print(`toolgate: gen takes openai or check\n\n${USAGE}`, 2, process.stderr)
}

function token(what: string | undefined, clientId = `client-${randomBytes(3).toString('hex')}`): number {
  if (what !== 'new') return print(`toolgate: token takes new\n\n${USAGE}`, 2, process.stderr)
  const created = newToken(clientId)
  process.stderr.write(
    `The token of client ${clientId} is on the first line: give it to the client (Authorization: Bearer <token>); it is shown once and the gateway keeps only its SHA-256.\nThe lines after it, saved as TOOLGATE_CONFIG (or added to your clients:), admit it.\n`,
  )
  return print(`${created.token}\n\n${created.yaml}`, 0)
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
