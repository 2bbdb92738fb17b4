// Issue 14, class 7: builds run bounded, in a child process of their own (issue 44); limits make a
// problem of one file or one tool.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { once } from 'node:events'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import type { CatalogOptions } from '../../src/catalog/index.js'
import type { BuildBounds } from '../../src/store/catalog-builder.js'
import { type CatalogStore, createCatalogStore } from '../../src/store/index.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { largeSpec } from '../helpers/large-spec.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'

const render = { opal: { name: 'toolgate', version: '0.0.0', authRequirements: {} } }

/** A store building in a child process (no reader given), as the server does. */
async function processStore(
  t: { after(fn: () => Promise<unknown>): void },
  dir: string,
  bounds: BuildBounds = { timeoutMs: 30_000, memoryMb: 512 },
  options: CatalogOptions = {},
) {
  const store = await createCatalogStore({ specsDir: dir, options, render, bounds })
  t.after(() => store.close())
  return store
}

const toolIds = (store: CatalogStore) => store.current().catalog.tools.map((tool) => tool.id)

/** An operation whose body has `properties` string properties. */
function wideSpec(properties: number) {
  const props = Object.fromEntries(
    Array.from({ length: properties }, (_, i) => [`p${i}`, { type: 'string' }]),
  )
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'wide', version: '1' },
    paths: {
      '/narrow': { get: { operationId: 'narrow', responses: { '200': { description: 'ok' } } } },
      '/wide': {
        post: {
          operationId: 'wide',
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: props } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  })
}

test('the build process builds, diffs and swaps like the in-process build, and keeps a broken file’s last good version', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
  const store = await processStore(t, dir)
  assert.deepEqual(toolIds(store), ['a:op1'])
  assert.ok(Object.isFrozen(store.current().catalog.tools[0]), 'the catalog from the build process is frozen')
  assert.ok(
    store.current().documents.get('opal', 'discover')!.body.length > 0,
    'rendered in the build process',
  )

  await writeFile(join(dir, 'b.yaml'), serviceSpec([7, 8]))
  const added = await store.reload('manual')
  assert.equal(added.swapped, true)
  assert.deepEqual(added.diff, { added: ['b:op7', 'b:op8'], removed: [], changed: [] })
  assert.equal((await store.reload('manual')).swapped, false, 'nothing changed: no swap')

  await writeFile(join(dir, 'b.yaml'), 'openapi: 3.1.0\npaths: [')
  const broken = await store.reload('manual')
  assert.deepEqual(broken.stale, ['b.yaml'])
  assert.deepEqual(toolIds(store), ['a:op1', 'b:op7', 'b:op8'], 'the last good version serves')
  // Still broken on the next build: the last good version crossed to the next build process intact.
  await store.reload('signal')
  assert.deepEqual(toolIds(store), ['a:op1', 'b:op7', 'b:op8'])
})

test('a file over limits.operations is refused with a problem naming it; the other files serve', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1, 2]))
  const store = await processStore(t, dir, undefined, { limits: { operations: 100 } })
  await writeFile(join(dir, 'big.json'), largeSpec(101))
  const record = await store.reload('manual')
  assert.equal(record.outcome, 'failed')
  assert.deepEqual(record.failed, ['big.json'])
  const problem = store.current().catalog.problems.find((p) => p.file === 'big.json')
  assert.equal(problem?.code, 'source-too-many-operations')
  assert.equal(problem?.severity, 'error')
  assert.match(problem?.message ?? '', /101 operations, more than limits\.operations \(100\)/)
  assert.deepEqual(toolIds(store), ['small:op1', 'small:op2'])

  await writeFile(join(dir, 'big.json'), largeSpec(100))
  assert.equal((await store.reload('manual')).outcome, 'ok', 'at the limit it serves')
  assert.equal(toolIds(store).length, 102)
})

test('a tool over limits.schemaNodes is left out with a warning; the rest of its file serves', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'wide.json'), wideSpec(200))
  const store = await processStore(t, dir, undefined, { limits: { schemaNodes: 100 } })
  assert.deepEqual(toolIds(store), ['wide:narrow'])
  const problem = store.current().catalog.problems.find((p) => p.code === 'tool-schema-too-large')
  assert.equal(problem?.severity, 'warning')
  assert.equal(problem?.file, 'wide.json')
  assert.equal(problem?.pointer, '/paths/~1wide/post')
  assert.match(problem?.message ?? '', /wide:wide has more than 100 nodes \(limits\.schemaNodes\)/)
  assert.equal(store.current().catalog.sources[0]?.status, 'ok')
})

test('a build that needs more than limits.buildMemoryMb is stopped: a failed reload with the reason, the last good catalog serves', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1]))
  const store = await processStore(
    t,
    dir,
    { timeoutMs: 60_000, memoryMb: 64 },
    { limits: { operations: 1e6 } },
  )
  const before = store.current()
  await writeFile(join(dir, 'big.json'), largeSpec(40_000))
  const record = await store.reload('manual')
  assert.equal(record.outcome, 'failed')
  assert.equal(record.swapped, false)
  assert.match(record.error ?? '', /more memory than limits\.buildMemoryMb \(64 MB\) and was stopped/)
  assert.equal(store.current(), before, 'the serving snapshot stays')
  assert.deepEqual(toolIds(store), ['small:op1'])

  // The next build is a fresh process: once the file is gone, reloads work again.
  await writeFile(join(dir, 'big.json'), largeSpec(1))
  assert.equal((await store.reload('manual')).outcome, 'ok')
  assert.deepEqual(toolIds(store), ['big:getResource0', 'small:op1'])
})

test('a build longer than limits.buildTimeoutMs is stopped: a failed reload with the reason, the last good catalog serves', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1]))
  const store = await processStore(
    t,
    dir,
    { timeoutMs: 2_000, memoryMb: 1_024 },
    { limits: { operations: 1e6 } },
  )
  await writeFile(join(dir, 'big.json'), largeSpec(40_000))
  const started = performance.now()
  const record = await store.reload('manual')
  const took = performance.now() - started
  assert.equal(record.outcome, 'failed')
  assert.match(record.error ?? '', /longer than limits\.buildTimeoutMs \(2000 ms\) and was stopped/)
  t.diagnostic(`stopped ${Math.round(took)} ms after the reload began (bound 2,000 ms)`)
  assert.deepEqual(toolIds(store), ['small:op1'])
  assert.equal(store.history().at(-1), record)
})

// A 40,000-operation build runs for seconds; the failed record says closing stopped it.
test('closing the store stops a running build at once', { timeout: HANG_BOUND_MS }, async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1]))
  const store = await processStore(t, dir, undefined, { limits: { operations: 1e6 } })
  await writeFile(join(dir, 'big.json'), largeSpec(40_000))
  const reload = store.reload('signal')
  await new Promise((resolve) => setTimeout(resolve, 300))
  await store.close()
  const record = await reload
  assert.equal(record.outcome, 'failed')
  assert.match(record.error ?? '', /shutting down/)
})

test('a first build that fails as a whole fails the start with the reason', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'big.json'), largeSpec(40_000))
  await assert.rejects(
    createCatalogStore({
      specsDir: dir,
      options: { limits: { operations: 1e6 } },
      render,
      bounds: { timeoutMs: 500, memoryMb: 1_024 },
    }),
    /the first catalog build failed: the catalog build took longer than limits\.buildTimeoutMs \(500 ms\)/,
  )
})

test('the build process reads spec files with the configured limits (limits.specBytes reaches it)', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1]))
  await writeFile(join(dir, 'big.json'), wideSpec(200))
  const store = await processStore(t, dir, { timeoutMs: 30_000, memoryMb: 512, read: { maxBytes: 4_096 } })
  assert.deepEqual(toolIds(store), ['small:op1'])
  const problem = store.current().catalog.problems.find((p) => p.file === 'big.json')
  assert.equal(problem?.code, 'source-too-large', JSON.stringify(store.current().catalog.problems))
  assert.match(problem.message, /4096/)
})

/** Calls `seen` with each build process this process forks while `work` runs. */
async function watchingBuilds<T>(seen: (child: ChildProcess) => void, work: () => Promise<T>): Promise<T> {
  const listener = (message: unknown) => {
    // Published as the ChildProcess is made; its arguments are known once it spawned.
    const child = (message as { process: ChildProcess }).process
    child.once('spawn', () => {
      if (child.spawnargs.some((arg) => arg.endsWith('build-worker.js'))) seen(child)
    })
  }
  subscribe('child_process', listener)
  try {
    return await work()
  } finally {
    unsubscribe('child_process', listener)
  }
}

test('a build process that dies without an answer is a failed reload with the reason, never a hung one', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'small.yaml'), serviceSpec([1]))
  const store = await processStore(t, dir, undefined, { limits: { operations: 1e6 } })
  const before = store.current()
  await writeFile(join(dir, 'big.json'), largeSpec(40_000))
  const record = await watchingBuilds(
    (child) => setTimeout(() => child.kill('SIGKILL'), 200),
    () => store.reload('manual'),
  )
  assert.equal(record.outcome, 'failed')
  assert.equal(record.swapped, false)
  assert.match(record.error ?? '', /the catalog build process exited \(signal SIGKILL\) without an answer/)
  assert.equal(store.current(), before, 'the serving snapshot stays')

  await writeFile(join(dir, 'big.json'), largeSpec(1))
  assert.equal((await store.reload('manual')).outcome, 'ok', 'the next build runs in a fresh process')
})

/** Whether `pid` has exited (a zombie nobody reaped counts as exited). */
async function exited(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0)
  } catch {
    return true
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
}

test('a build process ends when the gateway dies (its IPC channel closes)', async (t) => {
  const dir = await tempDir(t)
  await writeFile(join(dir, 'big.json'), largeSpec(40_000))
  const store = new URL('../../src/store/index.js', import.meta.url).href
  // A gateway of its own, killed while its first build runs; it prints the build's pid.
  const script = `
    import { subscribe } from 'node:diagnostics_channel'
    subscribe('child_process', ({ process: child }) => child.once('spawn', () => console.log('build ' + child.pid)))
    const { createCatalogStore } = await import(${JSON.stringify(store)})
    await createCatalogStore({
      specsDir: ${JSON.stringify(dir)},
      options: { limits: { operations: 1e6 } },
      render: { opal: { name: 't', version: '0', authRequirements: {} } },
      bounds: { timeoutMs: 120000, memoryMb: 1024 },
    })
  `
  const gateway = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.after(() => gateway.kill('SIGKILL'))
  const [line] = (await once(gateway.stdout!, 'data')) as [Buffer]
  const pid = Number(/build (\d+)/.exec(line.toString())?.[1])
  assert.ok(pid > 0, `the gateway printed ${line.toString()}`)
  assert.equal(await exited(pid), false, 'the build runs')
  gateway.kill('SIGKILL')
  // A hang check, not a timing: the build alone would run for seconds more.
  const deadline = Date.now() + 10_000
  while (!(await exited(pid)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(await exited(pid), true, 'the build process outlived the gateway')
})
