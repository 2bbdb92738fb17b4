// SIGTERM to the built server while slow upstream calls are in flight (SPEC §5 "Shutdown").
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client, request } from 'undici'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

/** The exit code and how long after `since` the process took to exit. */
async function exitOf(server: StartedServer, since: number) {
  const [code] = (await once(server.child, 'exit')) as [number | null]
  return { code, afterMs: performance.now() - since }
}

/** One request on a brand-new connection: refused, or the status it got. */
async function freshConnection(url: string, path: string): Promise<number | string> {
  const client = new Client(url)
  try {
    const res = await client.request({ path, method: 'GET' })
    await res.body.dump()
    return res.statusCode
  } catch (err) {
    return (err as { code?: string }).code ?? (err as Error).message
  } finally {
    await client.destroy()
  }
}

async function slowGateway(
  t: { after(fn: () => Promise<unknown>): void },
  delayMs: number,
  env: Record<string, string>,
) {
  const upstream = await startUpstream(t, async (_received, res) => {
    // The wait ends with the connection too: a call the gateway gave up leaves no timer running.
    const gone = new AbortController()
    res.once('close', () => gone.abort())
    if (!(await sleep(delayMs, true, { signal: gone.signal }).catch(() => false))) return
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"done":true}')
  })
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1], upstream.url))
  const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off', ...env })
  t.after(() => stopServerProcess(server))
  const call = () =>
    request(`${server.url}/tools/svc:op1`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    }).then(async (res) => ({ status: res.statusCode, body: await res.body.text() }))
  return { upstream, server, call }
}

test('SIGTERM during slow calls: not ready at once, serving through DRAIN_DELAY, then refused; the calls complete; exit 0 in time', async (t) => {
  const { upstream, server, call } = await slowGateway(t, 2_000, {
    DRAIN_DELAY: '800',
    SHUTDOWN_TIMEOUT: '5000',
  })
  const calls = Array.from({ length: 5 }, call)
  while (upstream.received.length < 5) await sleep(10) // all five are at the upstream now
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  const exit = exitOf(server, signalled)

  await sleep(150)
  assert.equal(await freshConnection(server.url, '/ready'), 503, 'readiness fails at once')
  assert.equal(await freshConnection(server.url, '/discovery'), 200, 'the deregistration window still serves')
  await sleep(1_000)
  const late = await freshConnection(server.url, '/discovery')
  assert.ok(
    late === 'ECONNREFUSED' || late === 503,
    `after DRAIN_DELAY a new connection is refused or 503, got ${late}`,
  )

  const answers = await Promise.all(calls)
  assert.deepEqual(
    answers.map((answer) => answer.status),
    [200, 200, 200, 200, 200],
    'the in-flight calls complete',
  )
  assert.match(answers[0]!.body, /"done":true/)
  const { code, afterMs } = await exit
  assert.equal(
    code,
    0,
    server
      .logs()
      .split('\n')
      .filter((line) => !/incoming request|request completed/.test(line))
      .join('\n'),
  )
  // Exit code 0 says the calls ended within SHUTDOWN_TIMEOUT (past it the exit is code 1, below).
  assert.ok(afterMs >= 1_800, `it waited for the slow calls (${Math.round(afterMs)} ms)`)
  t.diagnostic(`exit ${Math.round(afterMs)} ms after SIGTERM`)
})

// The call takes 120 s: an exit it held would outlive the hang bound.
test('a call slower than SHUTDOWN_TIMEOUT does not hold the exit: the process leaves within the bound, code 1', {
  timeout: HANG_BOUND_MS,
}, async (t) => {
  const { upstream, server, call } = await slowGateway(t, 120_000, {
    DRAIN_DELAY: '200',
    SHUTDOWN_TIMEOUT: '1000',
  })
  const hanging = call().catch((err: Error) => ({ status: 0, body: err.message }))
  while (upstream.received.length < 1) await sleep(10)
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  const { code, afterMs } = await exitOf(server, signalled)
  assert.equal(code, 1, 'cut short by the bound')
  // Code 1 says the bound cut it; exiting at all within the hang bound says the call did not hold it.
  t.diagnostic(`exit ${Math.round(afterMs)} ms after SIGTERM (DRAIN_DELAY 200 + SHUTDOWN_TIMEOUT 1000)`)
  assert.notEqual((await hanging).status, 200)
})

// The drain delay is 60 s: an exit that waited it out would outlive the hang bound.
test('a second signal exits at once, whatever the drain delay', { timeout: HANG_BOUND_MS }, async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1]))
  const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off', DRAIN_DELAY: '60000' })
  t.after(() => stopServerProcess(server))
  server.child.kill('SIGTERM')
  await sleep(200)
  const signalled = performance.now()
  server.child.kill('SIGINT')
  const { afterMs } = await exitOf(server, signalled)
  t.diagnostic(`exit ${Math.round(afterMs)} ms after the second signal`)
})
