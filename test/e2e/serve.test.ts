// The built server started as a process, as a user starts it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { runCli, startServerProcess, stopServerProcess } from '../helpers/process.js'

test('toolgate serve on embedded defaults: the shipped catalog serves and the example upstream answers', async (t) => {
  const server = await startServerProcess({ SPECS_DIR: '', EXAMPLE_UPSTREAM: 'auto' })
  t.after(() => stopServerProcess(server))
  const health = await fetch(`${server.url}/health`)
  assert.equal(health.status, 200)
  const catalog = (await (await fetch(`${server.url}/catalog`)).json()) as { services: { id: string }[] }
  assert.deepEqual(
    catalog.services.map((s: { id: string }) => s.id),
    ['billing', 'support', 'tickets'],
  )
  const upstream = /"upstream":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(server.logs())?.[1]
  assert.ok(upstream, 'the example upstream is announced in the log')
  const status = await fetch(`${upstream}/tickets/status`)
  assert.equal(status.status, 200)
})

test('SIGTERM closes the server with exit code 0', async () => {
  const server = await startServerProcess({ EXAMPLE_UPSTREAM: 'off' })
  assert.equal((await fetch(`${server.url}/ready`)).status, 200)
  assert.equal(await stopServerProcess(server), 0)
})

test('a bad configuration stops the start with a message naming the variable', async () => {
  const result = await runCli(['serve'], { PORT: '99999' })
  assert.equal(result.code, 1)
  assert.match(result.stderr, /environment variable PORT: must be <= 65535/)
})

test('a missing specs directory stops the start with a message naming SPECS_DIR, not ENOENT', async () => {
  for (const dir of ['/nonexistent/toolgate-specs', '/etc/hostname']) {
    const { code, stderr } = await runCli(['serve'], { SPECS_DIR: dir, PORT: '0' })
    assert.equal(code, 1)
    assert.match(
      stderr,
      new RegExp(
        `the specs directory "${dir}" \\(SPECS_DIR, resolved to ${dir}\\) (does not exist|is not a directory): set SPECS_DIR`,
      ),
    )
    assert.doesNotMatch(stderr, /ENOENT|scandir|\n\s+at /)
  }
})

test('a port already in use stops the start with its message and a non-zero exit, not a process left hanging', async (t) => {
  const holder = await startServerProcess({ EXAMPLE_UPSTREAM: 'off' })
  t.after(() => stopServerProcess(holder))
  const port = new URL(holder.url).port
  const result = await runCli(['serve'], { PORT: port, HOST: '127.0.0.1', EXAMPLE_UPSTREAM: 'off' }, 10_000)
  assert.equal(result.code, 2)
  assert.match(result.stderr, /EADDRINUSE/)
})
