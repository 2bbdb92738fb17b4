// The published package (issue 18): `npm pack` ships only what a user needs, and the tarball,
// installed into a clean directory with its production dependencies, runs `toolgate serve`.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { projectRoot } from '../helpers/paths.js'
import { startServerProcess, stopServerProcess } from '../helpers/process.js'

const run = promisify(execFile)

/** What a user of the package needs: the compiled gateway, the example upstream, the demo specs, the explorer page. */
const SHIPPED =
  /^package\/(package\.json|README\.md|dist\/(src|plugins|examples|explorer)\/.+\.js|specs\/.+|explorer\/(index\.html|explorer\.css))$/

test('npm pack ships only the compiled gateway and its specs; the tarball installs and serves from a clean directory', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-package-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const npmEnv = {
    ...process.env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }

  const packed = await run('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: projectRoot,
    env: npmEnv,
  })
  const tarball = join(dir, packed.stdout.trim().split('\n').at(-1)!)
  const { stdout: listing } = await run('tar', ['-tzf', tarball])
  const entries = listing.trim().split('\n')
  const unexpected = entries.filter((entry) => !SHIPPED.test(entry))
  assert.deepEqual(unexpected, [], 'files a user does not need are in the package')
  for (const needed of [
    'package/dist/src/cli/index.js',
    'package/dist/src/store/build-worker.js',
    'package/specs/tickets.yaml',
    'package/explorer/index.html',
    'package/dist/explorer/boot.js',
    'package/dist/explorer/app.js',
  ])
    assert.ok(entries.includes(needed), `${needed} is missing from the package`)

  const app = join(dir, 'app')
  await run('mkdir', ['-p', app])
  await writeFile(join(app, 'package.json'), '{ "name": "toolgate-user", "private": true }\n')
  const installed = await run(
    'npm',
    ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball],
    { cwd: app, env: npmEnv, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
  )
  // Node 20 is past its end of life and light-my-request's `cookie` wants Node 22: the one warning
  // it may print there; on a supported Node the install is clean.
  if (Number(process.versions.node.split('.')[0]) >= 22)
    assert.doesNotMatch(installed.stderr, /EBADENGINE/, installed.stderr)

  const cli = join(app, 'node_modules', 'toolgate', 'dist', 'src', 'cli', 'index.js')
  const server = await startServerProcess(
    { SPECS_DIR: join(app, 'node_modules', 'toolgate', 'specs'), NODE_ENV: 'production' },
    30_000,
    { cli, cwd: app },
  )
  t.after(() => stopServerProcess(server))
  const health = await fetch(`${server.url}/health`)
  assert.equal(health.status, 200)
  assert.deepEqual(await health.json(), { status: 'ok' })
  const version = await fetch(`${server.url}/version`)
  assert.equal(version.status, 200)
  // The explorer's page and modules come from the package, its validator from the installed dependency.
  for (const path of ['/explorer', '/explorer/assets/app.js', '/explorer/assets/vendor/json-schema/index.js'])
    assert.equal((await fetch(`${server.url}${path}`)).status, 200, path)
  const discovery = (await (await fetch(`${server.url}/discovery`)).json()) as { functions: unknown[] }
  assert.ok(discovery.functions.length > 0, 'the installed package serves no tools')
  assert.equal(await stopServerProcess(server), 0)
})
