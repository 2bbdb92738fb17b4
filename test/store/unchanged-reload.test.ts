// Issue 20, row 5b: a reload that finds every input as the serving catalog's build read it ends
// before building; anything a build depends on that changed (a file's bytes, the set of files, a
// name, a `$ref`d file, a remote source, the last good sources) still rebuilds. Each case runs with
// the in-process builder and with the process builder the server uses.
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { subscribe } from 'node:diagnostics_channel'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { test } from 'node:test'
import fc from 'fast-check'
import { stringify } from 'yaml'
import { createFsSourceReader, type RemoteSourceOptions, type SourceReader } from '../../src/catalog/index.js'
import { type CatalogStore, createCatalogStore, type ReloadRecord } from '../../src/store/index.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

const render = { opal: { name: 'toolgate', version: '0.0.0', authRequirements: {} } }
const KINDS = ['in-process', 'process'] as const
type Kind = (typeof KINDS)[number]

/** Build processes started by this one (each build in the process builder forks one). */
let buildsStarted = 0
subscribe('child_process', (message) => {
  // Published as the ChildProcess is made; its arguments are known once it spawned.
  const child = (message as { process: ChildProcess }).process
  child.once('spawn', () => {
    if (child.spawnargs.some((arg) => arg.endsWith('build-worker.js'))) buildsStarted += 1
  })
})

interface Observed {
  readonly store: CatalogStore
  /** Builds started so far: spec files read to build (in-process), or build processes started. */
  builds(): number
}

/**
 * A store over `dir`. In-process it reads through the disk reader, counting the reads only a
 * build makes (a reload's check lists and hashes, it never reads text).
 */
async function storeOf(
  t: { after(fn: () => Promise<unknown>): void },
  kind: Kind,
  dir: string,
  remoteSources: readonly RemoteSourceOptions[] = [],
): Promise<Observed> {
  if (kind === 'process') {
    const before = buildsStarted
    const store = await createCatalogStore({
      specsDir: dir,
      options: {},
      render,
      bounds: { timeoutMs: 60_000, memoryMb: 512 },
      remoteSources,
    })
    t.after(() => store.close())
    assert.equal(buildsStarted - before, 1, 'the first build ran in a build process')
    return { store, builds: () => buildsStarted }
  }
  const disk = createFsSourceReader()
  let textReads = 0
  const reader: SourceReader = {
    listFiles: (dir) => disk.listFiles(dir),
    readText(path, root) {
      textReads += 1
      return disk.readText(path, root)
    },
    readTextWithDigest(path, root) {
      textReads += 1
      return disk.readTextWithDigest(path, root)
    },
    digest: (path, root) => disk.digest(path, root),
  }
  const store = await createCatalogStore({ specsDir: dir, reader, options: {}, render, remoteSources })
  t.after(() => store.close())
  assert.ok(textReads > 0, 'the first build read the files')
  return { store, builds: () => textReads }
}

/** Reloads, and tells whether a build ran. */
async function reload(observed: Observed, trigger: ReloadRecord['trigger'] = 'manual') {
  const before = observed.builds()
  const record = await observed.store.reload(trigger)
  return { record, built: observed.builds() > before }
}

const toolIds = (store: CatalogStore) => store.current().catalog.tools.map((tool) => tool.id)

/** The reload ended before building and reports the serving catalog as it is. */
function assertSkipped(store: CatalogStore, outcome: { record: ReloadRecord; built: boolean }) {
  const { record, built } = outcome
  const { catalog } = store.current()
  assert.equal(built, false, 'nothing was built')
  assert.equal(record.error, undefined)
  assert.equal(record.swapped, false)
  assert.equal(record.previousVersion, catalog.version)
  assert.equal(record.catalogVersion, catalog.version)
  assert.deepEqual(record.diff, { added: [], removed: [], changed: [] })
  const status = (wanted: string) =>
    catalog.sources.filter((source) => source.status === wanted).map((source) => source.sourceId)
  assert.deepEqual(record.stale, status('stale'))
  assert.deepEqual(record.failed, status('failed'))
  assert.equal(record.outcome, catalog.sources.every((source) => source.status === 'ok') ? 'ok' : 'failed')
}

for (const kind of KINDS) {
  test(`${kind}: nothing changed, or every file rewritten byte for byte: no build, the serving catalog reported as it is, a stale and a failed file included`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
    await writeFile(join(dir, 'b.yaml'), serviceSpec([2]))
    const observed = await storeOf(t, kind, dir)
    const { store } = observed
    const first = store.current()
    assertSkipped(store, await reload(observed))
    assertSkipped(store, await reload(observed, 'signal'))
    assert.equal(store.current(), first, 'the very same snapshot serves')

    // b.yaml breaks (its last good version keeps serving), c.yaml never loads.
    await writeFile(join(dir, 'b.yaml'), 'openapi: 3.1.0\npaths: [')
    await writeFile(join(dir, 'c.yaml'), 'not: [a spec')
    const broken = await reload(observed)
    assert.equal(broken.built, true)
    assert.deepEqual(broken.record.stale, ['b.yaml'])
    assert.deepEqual(broken.record.failed, ['c.yaml'])
    const serving = store.current()
    const unchanged = await reload(observed)
    assertSkipped(store, unchanged)
    assert.equal(unchanged.record.outcome, 'failed')
    assert.deepEqual(unchanged.record.stale, ['b.yaml'])
    assert.deepEqual(unchanged.record.failed, ['c.yaml'])
    assert.deepEqual(toolIds(store), ['a:op1', 'b:op2'], 'the last good version of b.yaml still serves')

    // An editor's save, or a touch, that writes the same bytes.
    for (const name of ['a.yaml', 'b.yaml', 'c.yaml'])
      await writeFile(join(dir, name), await readFile(join(dir, name)))
    assertSkipped(store, await reload(observed))
    assert.equal(store.current(), serving)
  })

  test(`${kind}: a changed byte, an added file, a removed file and a renamed file each rebuild`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
    const observed = await storeOf(t, kind, dir)
    const { store } = observed

    await writeFile(join(dir, 'a.yaml'), serviceSpec([2]))
    const changed = await reload(observed)
    assert.equal(changed.built, true)
    assert.equal(changed.record.swapped, true)
    assert.deepEqual(changed.record.diff, { added: ['a:op2'], removed: ['a:op1'], changed: [] })

    await writeFile(join(dir, 'b.yaml'), serviceSpec([3]))
    const added = await reload(observed)
    assert.equal(added.built, true)
    assert.deepEqual(added.record.diff, { added: ['b:op3'], removed: [], changed: [] })

    await rm(join(dir, 'b.yaml'))
    const removed = await reload(observed)
    assert.equal(removed.built, true)
    assert.deepEqual(removed.record.diff, { added: [], removed: ['b:op3'], changed: [] })

    // The same bytes under another name: another service id.
    await rename(join(dir, 'a.yaml'), join(dir, 'z.yaml'))
    const renamed = await reload(observed)
    assert.equal(renamed.built, true)
    assert.deepEqual(renamed.record.diff, { added: ['z:op2'], removed: ['a:op2'], changed: [] })
    assert.deepEqual(toolIds(store), ['z:op2'])
    assertSkipped(store, await reload(observed))
  })

  test(`${kind}: a change in a $ref'd file outside the listing rebuilds`, async (t) => {
    const dir = await tempDir(t)
    await mkdir(join(dir, 'shared'))
    const thing = (property: string) =>
      stringify({ Thing: { type: 'object', properties: { [property]: { type: 'string' } } } })
    await writeFile(join(dir, 'shared', 'schemas.yaml'), thing('first'))
    await writeFile(
      join(dir, 'svc.yaml'),
      stringify({
        openapi: '3.1.0',
        info: { title: 'refs', version: '1' },
        servers: [{ url: 'http://127.0.0.1:9' }],
        paths: {
          '/things': {
            post: {
              operationId: 'createThing',
              requestBody: {
                content: { 'application/json': { schema: { $ref: './shared/schemas.yaml#/Thing' } } },
              },
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }),
    )
    const observed = await storeOf(t, kind, dir)
    const { store } = observed
    const schema = () => JSON.stringify(store.current().catalog.tools[0]?.inputSchema)
    assert.match(schema(), /"first"/)
    assertSkipped(store, await reload(observed))

    await writeFile(join(dir, 'shared', 'schemas.yaml'), thing('second'))
    const changed = await reload(observed)
    assert.equal(changed.built, true)
    assert.equal(changed.record.swapped, true)
    assert.deepEqual(changed.record.diff.changed, ['svc:createThing'])
    assert.match(schema(), /"second"/)
    assert.doesNotMatch(schema(), /"first"/)

    await rm(join(dir, 'shared', 'schemas.yaml'))
    const gone = await reload(observed)
    assert.equal(gone.built, true, 'a referenced file removed')
    assertSkipped(store, await reload(observed))
  })

  test(`${kind}: a remote source that answers something else rebuilds; the same answer, or the same failure again, does not`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
    let answer: { status: number; tools: string[] } = { status: 200, tools: ['search'] }
    const upstream = await startUpstream(t, (_received, res: ServerResponse) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          tools: answer.tools.map((name) => ({
            name,
            description: `The ${name} tool`,
            inputSchema: { type: 'object', properties: {} },
            endpoint: `/api/${name}`,
            method: 'POST',
            requiresAuth: false,
          })),
        }),
      )
    })
    const source: RemoteSourceOptions = {
      id: 'cms',
      baseUrl: upstream.url,
      format: 'tools-list',
      required: false,
    }
    const observed = await storeOf(t, kind, dir, [source])
    const { store } = observed
    assert.deepEqual(toolIds(store), ['a:op1', 'cms:search'])

    // SIGHUP asks the remote source again; it answers the same.
    const asked = upstream.received.length
    assertSkipped(store, await reload(observed, 'signal'))
    assert.equal(upstream.received.length, asked + 1, 'the remote source was asked again')

    answer = { status: 200, tools: ['search', 'publish'] }
    const more = await reload(observed, 'signal')
    assert.equal(more.built, true)
    assert.deepEqual(more.record.diff, { added: ['cms:publish'], removed: [], changed: [] })

    // It fails: its last answer serves, stale; failing the same way again changes nothing.
    answer = { status: 500, tools: [] }
    const failing = await reload(observed, 'signal')
    assert.equal(failing.built, true)
    assert.deepEqual(failing.record.stale, ['remote:cms'])
    assertSkipped(store, await reload(observed, 'signal'))
    assert.deepEqual(toolIds(store), ['a:op1', 'cms:publish', 'cms:search'])

    // A file event does not ask the remote source: its last state stands.
    answer = { status: 200, tools: ['search', 'publish'] }
    assertSkipped(store, await reload(observed, 'watch'))
    const recovered = await reload(observed, 'signal')
    assert.equal(recovered.built, true)
    assert.deepEqual(recovered.record.stale, [])
  })

  test(`${kind}: a build whose kept last good version failed is built once more, unchanged files and all`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'b.yaml'), serviceSpec([1]))
    const observed = await storeOf(t, kind, dir)
    const { store } = observed
    // b.yaml breaks and b.json takes its service id: the kept version of b.yaml fails too, and
    // is forgotten. The next build, on the same files, has no last good b.yaml to keep.
    await writeFile(join(dir, 'b.yaml'), 'openapi: 3.1.0\npaths: [')
    await writeFile(join(dir, 'b.json'), JSON.stringify(specOf([2])))
    const conflict = await reload(observed)
    assert.equal(conflict.built, true)
    assert.ok(
      store.current().catalog.problems.some((p) => p.file === 'b.yaml' && p.code === 'source-kept-last-good'),
    )
    const again = await reload(observed)
    assert.equal(again.built, true, 'the last good sources changed: the same files build differently')
    assert.equal(again.record.swapped, true)
    assert.ok(
      !store.current().catalog.problems.some((p) => p.code === 'source-kept-last-good'),
      'nothing is kept any more',
    )
    assertSkipped(store, await reload(observed))
  })

  test(`${kind}: the watcher hears an editor write the same bytes; its reload ends before building`, async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
    const observed = await storeOf(t, kind, dir)
    const { store } = observed
    await store.watch({ pollMs: 0, debounceMs: 50, onError: (err) => assert.fail(err) })
    const builds = observed.builds()
    const heard = new Promise<ReloadRecord>((resolve) => store.onReload((record) => resolve(record)))
    await writeFile(join(dir, 'a.yaml'), serviceSpec([1]))
    const record = await heard
    assert.equal(record.trigger, 'watch')
    assertSkipped(store, { record, built: observed.builds() > builds })
  })
}

/** serviceSpec's document as an object (for a JSON file). */
function specOf(operations: readonly number[]): unknown {
  const paths: Record<string, unknown> = {}
  for (const n of operations)
    paths[`/op${n}`] = {
      get: { operationId: `op${n}`, summary: `Operation ${n}`, responses: { '200': { description: 'ok' } } },
    }
  return { openapi: '3.1.0', info: { title: 'Reload test', version: '1.0.0' }, paths }
}

const NAMES = ['a.yaml', 'b.json', 'c.yml'] as const
const encoder = new TextEncoder()

/** A file: a small valid spec, or any bytes at all (invalid UTF-8 included). */
const contentArb = fc.oneof(
  fc
    .array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 4 })
    .map((ops) => encoder.encode(serviceSpec(ops))),
  fc.uint8Array({ minLength: 1, maxLength: 300 }),
)

/** One edit of one byte: replaced by another value, a byte inserted, or a byte deleted. */
interface Edit {
  readonly file: number
  readonly at: number
  readonly kind: 'replace' | 'insert' | 'delete'
  readonly byte: number
}

const editArb: fc.Arbitrary<Edit> = fc.record({
  file: fc.nat(),
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  byte: fc.integer({ min: 0, max: 255 }),
})

function edited(bytes: Uint8Array, edit: Edit): Uint8Array {
  const at = edit.at % (bytes.length + (edit.kind === 'insert' ? 1 : 0))
  if (edit.kind === 'insert')
    return Buffer.concat([bytes.subarray(0, at), Buffer.of(edit.byte), bytes.subarray(at)])
  if (edit.kind === 'delete') return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)])
  const copy = Buffer.from(bytes)
  copy[at] = bytes[at] === edit.byte ? (edit.byte + 1) % 256 : edit.byte
  return copy
}

for (const [kind, numRuns] of [
  ['in-process', 60],
  ['process', 6],
] as const) {
  test(`${kind}: any one-byte edit of any file rebuilds; the same bytes written again never do (property)`, async (t) => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 })
          .chain((names) =>
            fc.tuple(
              fc.constant(names),
              fc.array(contentArb, { minLength: names.length, maxLength: names.length }),
            ),
          ),
        editArb,
        async ([names, contents], edit) => {
          const cleanup: (() => Promise<unknown>)[] = []
          const scope = { after: (fn: () => Promise<unknown>) => void cleanup.push(fn) }
          try {
            const dir = await tempDir(scope)
            for (const [i, name] of names.entries()) await writeFile(join(dir, name), contents[i]!)
            const observed = await storeOf(scope, kind, dir)
            for (const [i, name] of names.entries()) await writeFile(join(dir, name), contents[i]!)
            assertSkipped(observed.store, await reload(observed))

            const i = edit.file % names.length
            await writeFile(join(dir, names[i]!), edited(contents[i]!, edit))
            assert.equal((await reload(observed)).built, true, `${names[i]} edited: ${JSON.stringify(edit)}`)
            assertSkipped(observed.store, await reload(observed))
          } finally {
            for (const fn of cleanup.reverse()) await fn()
          }
        },
      ),
      { numRuns },
    )
    t.diagnostic(`${numRuns} runs`)
  })
}
