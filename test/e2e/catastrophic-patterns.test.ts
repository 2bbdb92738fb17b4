// Issue 41 class 1: spec patterns ran on V8's backtracking engine. `^(a+)+$` against 30
// characters held every request, /health included, for 10.8 s; `(x+x+)+y` against 3 KB hung the
// process past SIGTERM. Now every pattern a spec brings runs in linear time (RE2). This drives the
// built server with generated arguments — a family of catastrophic patterns × lengths up to the
// body limit — through every surface that validates (the tool route, dry runs, Opal's route, MCP
// tools/call, search-mode call_tool, the interpreted check of a large schema, the output check of
// an upstream's answer) and the explorer's example builder, while /health is probed; then SIGTERM.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import fc from 'fast-check'
import { request } from 'undici'
import { stringify } from 'yaml'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { figuresOf, probeHealth } from '../helpers/health-probe.js'
import { startServerProcess } from '../helpers/process.js'
import { tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

const BODY_LIMIT = 1_048_576 // the default (docs/operations.md)

interface Catastrophe {
  readonly pattern: string
  /** A value of `length` characters the pattern does not match, on which a backtracking engine explodes. */
  readonly attack: (length: number) => string
}

const FAMILY: readonly Catastrophe[] = [
  { pattern: '^(a+)+$', attack: (n) => `${'a'.repeat(n - 1)}b` },
  { pattern: '(x+x+)+y', attack: (n) => 'x'.repeat(n) },
  { pattern: '^(a|a)*$', attack: (n) => `${'a'.repeat(n - 1)}b` },
  { pattern: '(a*)*b', attack: (n) => 'a'.repeat(n) },
  { pattern: '^(\\w+\\s?)*$', attack: (n) => `${'ab '.repeat(Math.floor((n - 1) / 3))}!` },
  { pattern: '^([a-z0-9]+\\.?)+@x\\.com$', attack: (n) => `${'a'.repeat(n - 1)}!` },
  // Generated nestings: ((a+)+)+ to (((((a+)+)+)+)+)+.
  ...[2, 3, 4, 5].map((depth) => ({
    pattern: `^${'('.repeat(depth)}a${')+'.repeat(depth)}$`,
    attack: (n: number) => `${'a'.repeat(n - 1)}!`,
  })),
]

const SURFACES = [
  'tools',
  'dry-run',
  'discovery',
  'mcp',
  'search',
  'interpreted',
  'output',
  'explorer',
] as const
type Surface = (typeof SURFACES)[number]

const property = (i: number) => `p${i}`
const patterned = () =>
  Object.fromEntries(FAMILY.map(({ pattern }, i) => [property(i), { type: 'string', pattern }]))

function spec(upstream: string): string {
  const body = (properties: Record<string, unknown>) => ({
    required: true,
    content: { 'application/json': { schema: { type: 'object', properties } } },
  })
  // Over COMPILED_SCHEMA_NODES (500): checked by the interpreter, not compiled by Ajv.
  const filler = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}`, { type: 'object' }]))
  return stringify({
    openapi: '3.1.0',
    info: { title: 'Catastrophic patterns', version: '1.0.0' },
    servers: [{ url: upstream }],
    paths: {
      '/check': {
        post: {
          operationId: 'check',
          // The explorer's example builder pads "example" with x to minLength and tests the pattern.
          requestBody: body({
            ...patterned(),
            ...Object.fromEntries(
              FAMILY.map(({ pattern }, i) => [`e${i}`, { type: 'string', pattern, minLength: 5_000 }]),
            ),
            keys: { type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } } },
          }),
          responses: { '200': { description: 'ok' } },
        },
      },
      '/big': {
        post: {
          operationId: 'big',
          requestBody: body({
            ...patterned(),
            ...filler,
            keys: { type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } } },
          }),
          responses: { '200': { description: 'ok' } },
        },
      },
      '/answer/{case}': {
        get: {
          operationId: 'answer',
          parameters: [{ name: 'case', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: { type: 'object', properties: patterned(), required: ['p0'] },
                },
              },
            },
          },
        },
      },
    },
  })
}

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
}

interface Answer {
  readonly status: number
  readonly text: string
  readonly ms: number
}

async function send(base: string, surface: Surface, index: number, value: string): Promise<Answer> {
  const args = { [property(index)]: value, keys: { [value.slice(0, 1_024)]: 'v' } }
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => ({
    url: `${base}${path}`,
    options: {
      method: 'POST' as const,
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    },
  })
  const rpc = (name: string, params: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: 1,
    method: name,
    params,
  })
  const target = {
    tools: () => post('/tools/svc:check', args),
    'dry-run': () => post('/tools/svc:check?dryRun=true', args),
    discovery: () => post('/discovery/tools/svc:check', args),
    mcp: () => post('/mcp', rpc('tools/call', { name: 'svc_check', arguments: args }), MCP_HEADERS),
    search: () =>
      post(
        '/mcp?mode=search',
        rpc('tools/call', { name: 'call_tool', arguments: { name: 'svc_check', arguments: args } }),
        MCP_HEADERS,
      ),
    interpreted: () => post('/tools/svc:big', args),
    output: () =>
      post('/mcp', rpc('tools/call', { name: 'svc_answer', arguments: { case: index } }), MCP_HEADERS),
    explorer: () => ({ url: `${base}/explorer/api/tools/svc:check`, options: { method: 'GET' as const } }),
  }[surface]()
  const started = performance.now()
  const res = await request(target.url, { ...target.options, headersTimeout: 20_000, bodyTimeout: 20_000 })
  const text = await res.body.text()
  return { status: res.statusCode, text, ms: performance.now() - started }
}

/** What each surface must answer: the violation named, or (output, explorer) a plain answer. */
function assertAnswer(surface: Surface, index: number, answer: Answer): void {
  const what = `${surface} ${FAMILY[index]!.pattern}: ${answer.text.slice(0, 300)}`
  if (surface === 'explorer' || surface === 'output') {
    assert.equal(answer.status, 200, what)
    return
  }
  const named = new RegExp(`/p${index}\\b[^]*match pattern`)
  if (surface === 'mcp' || surface === 'search') {
    assert.equal(answer.status, 200, what)
    assert.match(answer.text, /"isError":true/, what)
  } else assert.equal(answer.status, 400, what)
  assert.match(answer.text, named, what)
}

test('catastrophic patterns × lengths up to the body limit, through every surface and the explorer: answered at once, /health meanwhile, SIGTERM stops it', async (t) => {
  const upstream = await startUpstream(t, async (received, res) => {
    const index = Number(/\/answer\/(\d+)/.exec(received.target)?.[1] ?? 0)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ [property(index)]: FAMILY[index]!.attack(50_000), p0: 'aaaa' }))
  })
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), spec(upstream.url))
  const server = await startServerProcess({ SPECS_DIR: dir, EXAMPLE_UPSTREAM: 'off' })
  t.after(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
  })

  // Every pattern through every surface, at a generated length up to the body limit (and the limit).
  const overhead = 1_500
  const lengths = fc.sample(
    fc.oneof(fc.integer({ min: 20, max: 64 }), fc.integer({ min: 65, max: BODY_LIMIT - overhead })),
    { numRuns: FAMILY.length * SURFACES.length, seed: 41 },
  )
  const cases = FAMILY.flatMap((_, index) =>
    SURFACES.map((surface, s) => ({
      index,
      surface,
      length: s === 0 ? BODY_LIMIT - overhead : lengths[index * SURFACES.length + s]!,
    })),
  )

  const probe = probeHealth(server.url, 20)
  const slowest: { what: string; ms: number }[] = []
  try {
    for (const { index, surface, length } of cases) {
      const answer = await send(server.url, surface, index, FAMILY[index]!.attack(length))
      assertAnswer(surface, index, answer)
      slowest.push({ what: `${surface} ${FAMILY[index]!.pattern} ×${length}`, ms: Math.round(answer.ms) })
    }
  } catch (err) {
    server.child.kill('SIGKILL') // hung (the old engine): the probes pending on it fail now, not in 2 min
    throw err
  } finally {
    const samples = await probe.stop()
    const health = figuresOf(samples)
    slowest.sort((a, b) => b.ms - a.ms)
    t.diagnostic(`${cases.length} calls; slowest ${JSON.stringify(slowest.slice(0, 3))}`)
    t.diagnostic(`/health: ${JSON.stringify(health)}`)
    // V8's engine held /health 10.8 s for 30 characters and for good at 3 KB; RE2's 1 MiB calls
    // cost ≈ 0.3 s each. A hang check, not a speed bound: every call answered within its 20 s
    // timeout (send) and every probe answered 200; how long they took is the diagnostics above.
    assert.deepEqual(health.errors, [], '/health answered every probe')
  }

  // A catastrophic call in flight, then SIGTERM: the process drains and exits.
  const inFlight = send(server.url, 'tools', 1, FAMILY[1]!.attack(BODY_LIMIT - overhead)).catch(
    () => undefined,
  )
  const signalled = performance.now()
  server.child.kill('SIGTERM')
  const exited = once(server.child, 'exit')
  const timeout = new Promise((resolve) => setTimeout(resolve, HANG_BOUND_MS, 'timeout'))
  const outcome = await Promise.race([exited, timeout])
  assert.notEqual(outcome, 'timeout', `SIGTERM did not stop the process within ${HANG_BOUND_MS} ms`)
  assert.equal(server.child.exitCode, 0, server.logs().slice(-2_000))
  t.diagnostic(`exit ${Math.round(performance.now() - signalled)} ms after SIGTERM`)
  await inFlight
})
