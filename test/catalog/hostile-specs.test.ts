// Issue 14, classes 5, 6 and 8: a specs directory that holds FIFOs, links to devices, links out of
// the directory, files over the size cap and names like `__proto__`. Each is a problem for its
// own file; the rest keeps serving — in `lint`, at boot and on a reload — without hanging and in bounded memory.
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { open, readFile, symlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { stringify } from 'yaml'
import {
  type Catalog,
  createFsSourceReader,
  DEFAULT_SPEC_BYTES,
  loadCatalog,
  type Tool,
} from '../../src/catalog/index.js'
import { anyValueSchema } from '../../src/catalog/infer-type.js'
import { sanitizeArgumentKey } from '../../src/catalog/input-schema.js'
import { createArgumentValidator } from '../../src/executor/index.js'
import { testApp } from '../helpers/app.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'
import { CLI, type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { configMapDir, serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

/**
 * A hang check, not a speed bound: every process, load or reload here ends within this or the test
 * fails instead of hanging the run (a FIFO read blocks forever, /dev/zero never ends). Normal runs
 * take well under a second; how long they take is diagnostics only.
 */
const HANG_BOUND_MS = 30_000
/** Peak resident memory (VmHWM) of the CLI and the server; before the fix /dev/zero alone took 665 MB. */
const MEMORY_BOUND_KB = 300 * 1024

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const

/** An object whose keys are exactly `names`, `__proto__` included (a literal would set the prototype). */
function ownKeys<T>(names: readonly string[], value: (name: string, index: number) => T): Record<string, T> {
  return Object.fromEntries(names.map((name, index) => [name, value(name, index)]))
}

/** A service with one GET and one POST whose body is `$ref: ref`. */
function refSpec(ref: string, title = 'Ref') {
  return stringify(
    openapi(
      {
        '/fine': { get: { operationId: 'fine', responses: ok } },
        '/pet': {
          post: {
            operationId: 'addPet',
            requestBody: { content: { 'application/json': { schema: { $ref: ref } } } },
            responses: ok,
          },
        },
      },
      { info: { title, version: '1' } },
    ),
  )
}

/** A file of `bytes` bytes that takes no disk: a hole. */
async function sparseFile(path: string, bytes: number): Promise<void> {
  const handle = await open(path, 'w')
  await handle.truncate(bytes)
  await handle.close()
}

/**
 * A directory of secrets outside the specs directory: a valid spec whose title is a marker that
 * must never be served, and a schema file with the same marker.
 */
async function outsideDir(t: { after(fn: () => Promise<unknown>): void }) {
  const dir = await tempDir(t, 'toolgate-outside-')
  const marker = `TOP-SECRET-${basename(dir)}`
  await writeFile(join(dir, 'secret.yaml'), refSpec('#/components/schemas/none', marker))
  await writeFile(join(dir, 'pet.yaml'), stringify({ Pet: { type: 'object', description: marker } }))
  return { dir, marker }
}

/** The hostile files, each named for its case; `good.yaml` serves through all of them. */
async function hostileDir(t: { after(fn: () => Promise<unknown>): void }, upstream = 'http://127.0.0.1:9') {
  const dir = await tempDir(t, 'toolgate-hostile-')
  const outside = await outsideDir(t)
  await writeFile(join(dir, 'good.yaml'), serviceSpec([1, 2], upstream))
  await addHostileFiles(dir, outside.dir)
  return { dir, marker: outside.marker }
}

async function addHostileFiles(dir: string, outside: string): Promise<void> {
  // Class 5: non-regular files, top-level and referenced.
  execFileSync('mkfifo', [join(dir, 'fifo.yaml')])
  execFileSync('mkfifo', [join(dir, 'pipe.fifo')])
  await symlink('fifo.yaml', join(dir, 'fifo-link.yaml'))
  await writeFile(join(dir, 'ref-fifo.yaml'), refSpec('./pipe.fifo'))
  await symlink('/dev/zero', join(dir, 'zero.yaml'))
  await symlink('/dev/zero', join(dir, 'zero.bin'))
  await writeFile(join(dir, 'ref-zero.yaml'), refSpec('./zero.bin'))
  await sparseFile(join(dir, 'huge.yaml'), DEFAULT_SPEC_BYTES + 1)
  await sparseFile(join(dir, 'huge.data'), DEFAULT_SPEC_BYTES + 1)
  await writeFile(join(dir, 'ref-huge.yaml'), refSpec('./huge.data#/Pet'))
  // Class 6: links and references out of the directory.
  await symlink(join(outside, 'secret.yaml'), join(dir, 'out.yaml'))
  await symlink(join(outside, 'pet.yaml'), join(dir, 'out-pet.data'))
  await symlink(outside, join(dir, 'outdir'))
  await writeFile(join(dir, 'ref-link-out.yaml'), refSpec('./out-pet.data#/Pet'))
  await writeFile(join(dir, 'ref-dir-out.yaml'), refSpec('./outdir/pet.yaml#/Pet'))
  await writeFile(join(dir, 'ref-dotdot.yaml'), refSpec(`../${basename(outside)}/pet.yaml#/Pet`))
  await writeFile(join(dir, 'ref-absolute.yaml'), refSpec(`${join(outside, 'pet.yaml')}#/Pet`))
}

/** The top-level files that must fail, with the code each reports. */
const FAILING = {
  'fifo.yaml': 'source-not-regular-file',
  'fifo-link.yaml': 'source-not-regular-file',
  'zero.yaml': 'source-outside-directory',
  'huge.yaml': 'source-too-large',
  'out.yaml': 'source-outside-directory',
} as const

/** The files whose `$ref` must be refused (the file itself serves its other operation), and why. */
const REFUSED_REFS = {
  'ref-fifo.yaml': 'source-not-regular-file',
  'ref-zero.yaml': 'source-outside-directory',
  'ref-huge.yaml': 'source-too-large',
  'ref-link-out.yaml': 'source-outside-directory',
  'ref-dir-out.yaml': 'source-outside-directory',
  'ref-dotdot.yaml': 'source-outside-directory',
  'ref-absolute.yaml': 'source-outside-directory',
} as const

function assertHostileCatalog(catalog: Catalog, marker: string) {
  for (const [file, code] of Object.entries(FAILING)) {
    const problem = catalog.problems.find((p) => p.file === file && p.severity === 'error')
    assert.equal(problem?.code, code, `${file}: ${JSON.stringify(problem)}`)
    assert.ok(problem.message.includes(file), `${file}: the message names the file: ${problem.message}`)
    assert.equal(catalog.sources.find((s) => s.sourceId === file)?.status, 'failed')
  }
  for (const [file, code] of Object.entries(REFUSED_REFS)) {
    const problem = problemsOf(catalog, 'source-ref-unresolved').find((p) => p.file === file)
    assert.ok(problem?.message.includes(code), `${file}: ${JSON.stringify(problem)}`)
    assert.equal(catalog.sources.find((s) => s.sourceId === file)?.status, 'ok', file)
    toolById(catalog, `${file.replace('.yaml', '')}:fine`)
  }
  toolById(catalog, 'good:op1')
  toolById(catalog, 'good:op2')
  assert.ok(!JSON.stringify(catalog).includes(marker), 'content from outside the directory is served')
}

describe('the catalog over a hostile directory (in process)', () => {
  test('FIFOs, /dev/zero links, files over the cap and links out are each their file’s problem; the rest serves', async (t) => {
    const { dir, marker } = await hostileDir(t)
    const started = performance.now()
    const catalog = await withinHangBound(loadCatalog(dir, createFsSourceReader()), 'loading the directory')
    t.diagnostic(`hostile directory loaded in ${Math.round(performance.now() - started)} ms`)
    assertHostileCatalog(catalog, marker)
  })

  test('a ConfigMap mount (name -> ..data/name, ..data -> ..<timestamp>) loads, its sibling $ref included', async (t) => {
    const dir = await tempDir(t)
    const shared = openapi(
      {},
      { components: { schemas: { Pet: { type: 'object', properties: { name: { type: 'string' } } } } } },
    )
    await configMapDir(dir, {
      'cm.yaml': refSpec('./shared.yaml#/components/schemas/Pet'),
      'shared.yaml': stringify(shared),
    })
    const catalog = await loadCatalog(dir, createFsSourceReader())
    assert.deepEqual(catalog.problems, [])
    assert.deepEqual(toolById(catalog, 'cm:addPet').inputSchema.properties, { name: { type: 'string' } })
  })

  test('limits.specBytes: a file over a configured cap is refused by its size, not read', async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'good.yaml'), serviceSpec([1]))
    await writeFile(join(dir, 'big.yaml'), `${serviceSpec([1])}\n# ${'x'.repeat(4096)}\n`)
    const catalog = await loadCatalog(dir, createFsSourceReader({ maxBytes: 2048 }))
    const [problem] = problemsOf(catalog, 'source-too-large')
    assert.equal(problem?.file, 'big.yaml')
    assert.match(problem.message, /over the limit of 2048 bytes \(limits\.specBytes\)/)
    toolById(catalog, 'good:op1')
  })

  test('limits.readTimeoutMs: a read that outlives the bound is reported as source-read-timeout', async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'good.yaml'), serviceSpec([1]))
    await sparseFile(join(dir, 'slow.yaml'), 48 * 1024 * 1024) // 48 MiB of zeros takes far longer than 1 ms
    const catalog = await loadCatalog(dir, {
      ...createFsSourceReader({ timeoutMs: 1 }),
      listFiles: async () => ['slow.yaml'],
    })
    const [problem] = problemsOf(catalog, 'source-read-timeout')
    assert.equal(problem?.file, 'slow.yaml')
    assert.match(problem.message, /longer than 1 ms/)
  })

  test('limits.readTimeoutMs counts the time a read could run: the event loop busy elsewhere (a long parse) never times a read out', async (t) => {
    const dir = await tempDir(t)
    const text = serviceSpec([1])
    await writeFile(join(dir, 'a.yaml'), text)
    // 200 ms, not less: the read's four fs steps each wait for a pool thread and then for the
    // loop, and on a box loaded fifteen times over its cores (CI beside other work) they took
    // over 50 ms of wall time with no stall of ours in between.
    const timeoutMs = 200
    const reader = createFsSourceReader({ timeoutMs })
    // The thread stalls 1–3 times (other files' parses), 2–4 bounds each, after 0–3 turns of the loop.
    const stall = fc.record({ bounds: fc.integer({ min: 2, max: 4 }), turns: fc.integer({ min: 0, max: 3 }) })
    await fc.assert(
      fc.asyncProperty(fc.array(stall, { minLength: 1, maxLength: 3 }), async (stalls) => {
        const read = reader.readText(join(dir, 'a.yaml'), dir)
        for (const { bounds, turns } of stalls) {
          for (let turn = 0; turn < turns; turn++) await new Promise(setImmediate)
          const until = performance.now() + bounds * timeoutMs
          while (performance.now() < until); // a synchronous parse elsewhere
        }
        assert.equal(await read, text)
      }),
      { numRuns: 8 },
    )
  })
})

describe('spec names that are Object.prototype names (class 8)', () => {
  const body = (names: readonly string[]) => ({
    type: 'object',
    required: [...names],
    properties: ownKeys(names, () => ({ type: 'string' })),
  })

  test('__proto__, constructor, toString, hasOwnProperty, valueOf as required body properties: all in the tool, no clash', async () => {
    const doc = openapi({
      '/x': {
        post: {
          operationId: 'create',
          requestBody: { content: { 'application/json': { schema: body(PROTOTYPE_NAMES) } } },
          responses: ok,
        },
      },
    })
    const catalog = await catalogOf({ 'p.json': JSON.stringify(doc) })
    const tool = toolById(catalog, 'p:create')
    assert.deepEqual(problemsOf(catalog, 'argument-clash'), [])
    assert.deepEqual(Object.keys(tool.inputSchema.properties as object).sort(), [
      'constructor',
      'hasOwnProperty',
      'proto', // agents cannot send a `__proto__` key (JSON parsers refuse it): offered sanitized
      'toString',
      'valueOf',
    ])
    assert.deepEqual(tool.binding.arguments.proto, { in: 'body', name: '__proto__' })
    assert.deepEqual([...(tool.inputSchema.required as string[])].sort(), [
      'constructor',
      'hasOwnProperty',
      'proto',
      'toString',
      'valueOf',
    ])
  })

  test('as parameter names, operationIds and schema names, in OpenAPI 3.1, 3.0 (YAML) and Swagger 2.0', async () => {
    const schemas = ownKeys(PROTOTYPE_NAMES, (name) => ({
      type: 'object',
      required: [name],
      properties: ownKeys([name], () => ({ type: 'integer' })),
    }))
    const paths = ownKeys(PROTOTYPE_NAMES, (name) => ({
      post: {
        operationId: name,
        parameters: [{ name: `q${name}`, in: 'query', schema: { type: 'string' } }],
        requestBody: {
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        responses: ok,
      },
    }))
    const v31 = openapi(Object.fromEntries(Object.entries(paths).map(([name, item]) => [`/${name}`, item])), {
      components: { schemas },
    })
    const v30 = { ...v31, openapi: '3.0.3' }
    const swagger = {
      swagger: '2.0',
      info: { title: 'S', version: '1' },
      host: 'example.com',
      definitions: schemas,
      paths: Object.fromEntries(
        PROTOTYPE_NAMES.map((name) => [
          `/${name}`,
          {
            post: {
              operationId: name,
              parameters: [
                { name: `q${name}`, in: 'query', type: 'string' },
                { name: 'body', in: 'body', required: true, schema: { $ref: `#/definitions/${name}` } },
              ],
              responses: ok,
            },
          },
        ]),
      ),
    }
    for (const [file, doc] of [
      ['v31.json', JSON.stringify(v31)],
      ['v30.yaml', stringify(v30)],
      ['v20.yaml', stringify(swagger)],
    ] as const) {
      const catalog = await catalogOf({ [file]: doc })
      const service = file.replace(/\.\w+$/, '')
      assert.deepEqual(problemsOf(catalog, 'argument-clash'), [], file)
      assert.deepEqual(problemsOf(catalog, 'ref-dangling'), [], file)
      const wireNames = new Set(catalog.tools.map((tool) => tool.wireName))
      assert.equal(wireNames.size, PROTOTYPE_NAMES.length, file)
      for (const name of PROTOTYPE_NAMES) {
        const tool = toolById(catalog, `${service}:${name}`)
        const key = sanitizeArgumentKey(name)
        assert.deepEqual(tool.binding.arguments[key], { in: 'body', name }, `${file} ${name}`)
        assert.deepEqual(tool.binding.arguments[sanitizeArgumentKey(`q${name}`)], {
          in: 'query',
          name: `q${name}`,
        })
        const property = (tool.inputSchema.properties as Record<string, { type?: string }>)[key]
        assert.equal(property?.type, 'integer', `${file} ${name}`)
        assert.deepEqual(tool.inputSchema.required, [key], `${file} ${name}`)
      }
    }
  })

  test('a security scheme named constructor is not invented from Object.prototype', async () => {
    const catalog = await catalogOf({
      's.yaml': openapi({
        '/x': { get: { operationId: 'x', security: [{ constructor: [] }], responses: ok } },
      }),
    })
    assert.equal(problemsOf(catalog, 'security-scheme-unknown').length, 1)
    assert.deepEqual(toolById(catalog, 's:x').auth, [{ schemes: [] }])
  })

  test('a pure $ref loop (500 steps) is a ref-cycle warning and any value; the tool is validated', async () => {
    const steps = 500
    const schemas: Record<string, unknown> = {}
    for (let i = 0; i < steps; i++) schemas[`S${i}`] = { $ref: `#/components/schemas/S${(i + 1) % steps}` }
    schemas.Wrap = {
      type: 'object',
      properties: { loop: { $ref: '#/components/schemas/S0' }, n: { type: 'integer' } },
    }
    const catalog = await catalogOf({
      'l.yaml': openapi(
        {
          '/x': {
            post: {
              operationId: 'wrapped',
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Wrap' } } },
              },
              responses: ok,
            },
          },
        },
        { components: { schemas } },
      ),
    })
    const [cycle] = problemsOf(catalog, 'ref-cycle')
    assert.equal(cycle?.severity, 'warning')
    assert.equal(cycle.pointer, '/components/schemas/Wrap/properties/loop')
    const tool = toolById(catalog, 'l:wrapped')
    assert.deepEqual(tool.inputSchema.properties, { loop: anyValueSchema(), n: { type: 'integer' } })
    const check = createArgumentValidator().check(tool, { n: 'not a number', extra: 1 })
    assert.equal(check.ok, false, 'the tool is validated')
  })

  test('view names: ?profile=toString and a session for constructor find no view (400, not 500 or 201)', async (t) => {
    const app = await testApp(t)
    for (const name of PROTOTYPE_NAMES) {
      for (const url of [
        `/discovery?profile=${name}`,
        `/openai.json?profile=${name}`,
        `/claude.json?profile=${name}`,
        `/openai-deferred.json?profile=${name}`,
        `/claude-deferred.json?profile=${name}`,
      ]) {
        const response = await app.inject(url)
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`)
        assert.match(response.json().error, /Unknown profile/)
      }
      const session = await app.inject({ method: 'POST', url: '/api/sessions', payload: { profile: name } })
      assert.equal(session.statusCode, 400, `session for ${name}: ${session.body}`)
    }
  })

  test('property: any property names, prototype names among them, survive into the input schema and the body sent upstream', async (t) => {
    const upstream = await startUpstream(t)
    const prototypeNames = fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype))
    const plainNames = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,20}$/)
    const names = fc.uniqueArray(fc.oneof(prototypeNames, plainNames), { minLength: 1, maxLength: 8 })
    const dialect = fc.constantFrom('3.1', '3.0', '2.0')
    let run = 0
    await fc.assert(
      fc.asyncProperty(names, dialect, async (list, version) => {
        run += 1
        const catalog = await catalogOf({
          [`s.${version === '3.1' ? 'json' : 'yaml'}`]: specWith(list, version),
        })
        const tool = catalog.tools[0]!
        assertNamesSurvive(tool, list, catalog)
        const args = keyedArguments(tool, list)
        const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
        const outcome = await call(tool.id, args.byKey)
        assert.equal(outcome.status, 200, JSON.stringify(outcome))
        const sent = JSON.parse(upstream.received.at(-1)!.body.toString()) as Record<string, unknown>
        for (const name of list) {
          assert.ok(Object.hasOwn(sent, name), `${name} missing from ${JSON.stringify(sent)}`)
          assert.equal(sent[name], args.byName.get(name))
        }
        assert.deepEqual(Object.keys(sent).sort(), [...list].sort())
      }),
      { numRuns: 60 },
    )
    t.diagnostic(`${run} generated specs round-tripped`)
  })
})

function specWith(names: readonly string[], version: string): string {
  const schema = {
    type: 'object',
    required: [...names],
    properties: ownKeys(names, () => ({ type: 'string' })),
  }
  if (version === '2.0') {
    return stringify({
      swagger: '2.0',
      info: { title: 'S', version: '1' },
      host: 'example.com',
      paths: {
        '/x': {
          post: {
            operationId: 'send',
            parameters: [{ name: 'body', in: 'body', required: true, schema }],
            responses: ok,
          },
        },
      },
    })
  }
  const doc = openapi(
    {
      '/x': {
        post: {
          operationId: 'send',
          requestBody: { content: { 'application/json': { schema } } },
          responses: ok,
        },
      },
    },
    version === '3.0' ? { openapi: '3.0.3' } : {},
  )
  return version === '3.1' ? JSON.stringify(doc) : stringify(doc)
}

/** Every name is an argument bound to that body property, declared and required; clashes only where sanitizing merges names. */
function assertNamesSurvive(tool: Tool, names: readonly string[], catalog: Catalog) {
  const bound = new Map(
    Object.entries(tool.binding.arguments).flatMap(([key, target]) =>
      'name' in target && target.in === 'body' ? [[target.name, key] as const] : [],
    ),
  )
  const properties = tool.inputSchema.properties as Record<string, unknown>
  for (const name of names) {
    const key = bound.get(name)
    assert.ok(key !== undefined, `${name} is not an argument: ${JSON.stringify(tool.binding.arguments)}`)
    assert.ok(Object.hasOwn(properties, key), `${key} is not a property of the input schema`)
    assert.ok((tool.inputSchema.required as string[]).includes(key), `${key} is not required`)
  }
  const sanitized = names.map(sanitizeArgumentKey)
  if (new Set(sanitized).size === names.length) assert.deepEqual(problemsOf(catalog, 'argument-clash'), [])
}

function keyedArguments(tool: Tool, names: readonly string[]) {
  const byName = new Map(names.map((name, i) => [name, `value-${i}`]))
  const byKey: Record<string, unknown> = {}
  for (const [key, target] of Object.entries(tool.binding.arguments)) {
    if ('name' in target)
      Object.defineProperty(byKey, key, { value: byName.get(target.name), enumerable: true })
  }
  return { byName, byKey }
}

/** A child process's peak resident set (VmHWM), read from /proc as it exits. */
async function peakMemoryHook(dir: string): Promise<string> {
  const hook = join(dir, 'vm-hwm.cjs')
  await writeFile(
    hook,
    `process.on('exit', () => {
  const match = /VmHWM:\\s+(\\d+) kB/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))
  process.stderr.write('\\nVmHWM=' + (match ? match[1] : '?') + '\\n')
})\n`,
  )
  return hook
}

/** Runs the built CLI with a time bound; the exit code, output, duration and peak memory. */
async function runBounded(args: string[], hook: string, env: Record<string, string> = {}) {
  const started = performance.now()
  const child = spawn(process.execPath, ['--require', hook, CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), HANG_BOUND_MS)
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null]
  clearTimeout(timer)
  const ms = performance.now() - started
  const peakKb = Number(/VmHWM=(\d+)/.exec(stderr)?.[1] ?? Number.NaN)
  return { code, signal, stdout, stderr, ms, peakKb }
}

/** `work`, or a failure naming `what` once the hang bound has passed. */
async function withinHangBound<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} hung: not done after ${HANG_BOUND_MS} ms`)),
      HANG_BOUND_MS,
    )
  })
  try {
    return await Promise.race([work, hung])
  } finally {
    clearTimeout(timer)
  }
}

async function peakKbOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1])
}

async function json(server: StartedServer, path: string) {
  const response = await fetch(`${server.url}${path}`)
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function stopWithin(server: StartedServer): Promise<number> {
  const started = performance.now()
  const code = await Promise.race([
    stopServerProcess(server),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), HANG_BOUND_MS).unref()),
  ])
  if (code === 'timeout') {
    server.child.kill('SIGKILL')
    assert.fail(`SIGTERM did not end the server within ${HANG_BOUND_MS} ms`)
  }
  return performance.now() - started
}

describe('the built CLI and server over a hostile directory', () => {
  test('toolgate lint: every hostile file reported, exit 1, without hanging, in bounded memory', async (t) => {
    const { dir, marker } = await hostileDir(t)
    const hook = await peakMemoryHook(await tempDir(t))
    const result = await runBounded(['lint', dir], hook)
    t.diagnostic(`lint: ${Math.round(result.ms)} ms, VmHWM ${Math.round(result.peakKb / 1024)} MiB`)
    assert.equal(result.code, 1, result.stdout + result.stderr)
    assert.notEqual(result.signal, 'SIGKILL', `lint hung: killed after ${HANG_BOUND_MS} ms`)
    assert.ok(result.peakKb < MEMORY_BOUND_KB, `lint peaked at ${result.peakKb} kB`)
    for (const [file, code] of Object.entries(FAILING))
      assert.match(result.stdout, new RegExp(`^${file.replace('.', '\\.')} {2}error {2}${code} {2}`, 'm'))
    for (const [file, code] of Object.entries(REFUSED_REFS))
      assert.match(
        result.stdout,
        new RegExp(`^${file.replace('.', '\\.')}#\\S+ {2}warning {2}source-ref-unresolved .*${code}`, 'm'),
      )
    assert.ok(!result.stdout.includes(marker))
  })

  test('toolgate lint: a file over limits.specBytes from TOOLGATE_CONFIG is refused', async (t) => {
    const dir = await tempDir(t)
    await writeFile(join(dir, 'big.yaml'), `${serviceSpec([1])}\n# ${'x'.repeat(8192)}\n`)
    const config = join(await tempDir(t), 'gw.yaml')
    await writeFile(config, 'limits:\n  specBytes: 4096\n  readTimeoutMs: 2000\n')
    const hook = await peakMemoryHook(await tempDir(t))
    const result = await runBounded(['lint', dir], hook, { TOOLGATE_CONFIG: config })
    assert.equal(result.code, 1, result.stdout + result.stderr)
    assert.match(result.stdout, /^big\.yaml {2}error {2}source-too-large {2}.*over the limit of 4096 bytes/m)
  })

  test('boot: the server listens, the good spec serves, /health answers, nothing from outside is served; a __proto__ body property reaches the upstream', async (t) => {
    const upstream = await startUpstream(t)
    const { dir, marker } = await hostileDir(t, upstream.url)
    const protoSpec = openapi(
      {
        '/things': {
          post: {
            operationId: 'create',
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: [...PROTOTYPE_NAMES],
                    properties: ownKeys(PROTOTYPE_NAMES, () => ({ type: 'string' })),
                  },
                },
              },
            },
            responses: ok,
          },
        },
      },
      { servers: [{ url: upstream.url }] },
    )
    await writeFile(join(dir, 'proto.json'), JSON.stringify(protoSpec))
    const started = performance.now()
    const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off' }, HANG_BOUND_MS)
    const bootMs = performance.now() - started
    t.after(() => (server.child.exitCode === null ? stopServerProcess(server) : undefined))

    assert.equal((await fetch(`${server.url}/health`)).status, 200)
    const ready = await json(server, '/ready')
    assert.equal(ready.status, 200)
    const specs = ready.body.specs as { failed: string[] }
    for (const file of Object.keys(FAILING)) assert.ok(specs.failed.includes(file), `${file} not in /ready`)
    const openai = await (await fetch(`${server.url}/openai.json`)).text()
    assert.match(openai, /"good_op1"/)
    const catalog = await (await fetch(`${server.url}/catalog`)).text()
    assert.ok(
      !openai.includes(marker) && !catalog.includes(marker),
      'content from outside the directory is served',
    )
    assertHostileCatalog(JSON.parse(catalog) as Catalog, marker)

    const call = await fetch(`${server.url}/tools/proto_create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        proto: 'p',
        constructor: 'c',
        toString: 't',
        hasOwnProperty: 'h',
        valueOf: 'v',
      }),
    })
    assert.equal(call.status, 200, await call.text())
    const sent = upstream.received.at(-1)!.body.toString()
    assert.equal(
      sent,
      '{"__proto__":"p","constructor":"c","toString":"t","hasOwnProperty":"h","valueOf":"v"}',
    )

    const peakKb = await peakKbOf(server.child.pid!)
    const exitMs = await stopWithin(server)
    t.diagnostic(
      `boot: listening after ${Math.round(bootMs)} ms, VmHWM ${Math.round(peakKb / 1024)} MiB, exit ${Math.round(exitMs)} ms after SIGTERM`,
    )
    assert.ok(peakKb < MEMORY_BOUND_KB, `the server peaked at ${peakKb} kB`)
  })

  test('reload: hostile files arriving are reported in /ready without hanging; the good spec serves; SIGHUP and SIGTERM still work', async (t) => {
    const dir = await tempDir(t, 'toolgate-hostile-')
    const outside = await outsideDir(t)
    await writeFile(join(dir, 'good.yaml'), serviceSpec([1, 2]))
    const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off' }, HANG_BOUND_MS)
    t.after(() => (server.child.exitCode === null ? stopServerProcess(server) : undefined))

    const started = performance.now()
    await addHostileFiles(dir, outside.dir)
    const failedNow = async () => ((await json(server, '/ready')).body.specs as { failed: string[] }).failed
    for (;;) {
      const failed = await failedNow()
      if (Object.keys(FAILING).every((file) => failed.includes(file))) break
      if (performance.now() - started > HANG_BOUND_MS)
        assert.fail(`the reload did not report the hostile files within ${HANG_BOUND_MS} ms: ${failed}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const reportedMs = performance.now() - started
    const ready = await json(server, '/ready')
    assert.equal(ready.status, 200)
    const lastReload = (ready.body.specs as { lastReload: { durationMs: number; outcome: string } })
      .lastReload
    assert.equal(lastReload.outcome, 'failed')
    assertHostileCatalog((await json(server, '/catalog')).body as unknown as Catalog, outside.marker)
    assert.equal((await fetch(`${server.url}/health`)).status, 200)

    // SIGHUP reloads the same directory again, without hanging.
    const before = (await json(server, '/catalog/reloads')).body.reloads as unknown[]
    server.child.kill('SIGHUP')
    const hupStarted = performance.now()
    for (;;) {
      const reloads = (await json(server, '/catalog/reloads')).body.reloads as {
        trigger: string
        outcome: string
      }[]
      const last = reloads.at(-1)
      if (reloads.length > before.length && last?.trigger === 'signal') {
        assert.equal(last.outcome, 'failed', 'the hostile files are still reported after SIGHUP')
        break
      }
      if (performance.now() - hupStarted > HANG_BOUND_MS)
        assert.fail('SIGHUP: no reload within the hang bound')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    const peakKb = await peakKbOf(server.child.pid!)
    const exitMs = await stopWithin(server)
    t.diagnostic(
      `reload: hostile files reported after ${Math.round(reportedMs)} ms (reload ${lastReload.durationMs} ms), VmHWM ${Math.round(peakKb / 1024)} MiB, exit ${Math.round(exitMs)} ms after SIGTERM`,
    )
    assert.ok(peakKb < MEMORY_BOUND_KB, `the server peaked at ${peakKb} kB`)
  })
})
