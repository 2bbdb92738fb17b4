// Issue 41 class 2: a remote source's answers are bounded in decoded bytes, whatever the encoding.
// A file of its own: the peak RSS it reads (maxRSS) is this process's alone.
import assert from 'node:assert/strict'
import type { ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { describe, test } from 'node:test'
import { constants, createBrotliCompress, createDeflate, createGzip } from 'node:zlib'
import fc from 'fast-check'
import { fetchRemoteTools, type RemoteSourceOptions } from '../../src/catalog/index.js'
import { configFile, testApp } from '../helpers/app.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { remoteTool } from '../helpers/remote-tools.js'
import { startUpstream } from '../helpers/upstreams.js'

const MB = 1024 * 1024
const tool = { ...remoteTool, requiresAuth: false }
const PREFIX = `{"tools":[${JSON.stringify(tool)}],"pad":"`
const SUFFIX = '"}'
const PAD = Buffer.alloc(64 * 1024, 'a')

type Encoding = 'identity' | 'gzip' | 'deflate' | 'br'

/** A tool list of exactly `size` decoded bytes, made as it is sent: never held whole. */
async function* toolList(size: number): AsyncGenerator<Buffer> {
  yield Buffer.from(PREFIX)
  let left = size - PREFIX.length - SUFFIX.length
  while (left > 0) {
    const chunk = left >= PAD.length ? PAD : PAD.subarray(0, left)
    left -= chunk.length
    yield chunk
  }
  yield Buffer.from(SUFFIX)
}

function encoder(encoding: Exclude<Encoding, 'identity'>) {
  if (encoding === 'gzip') return createGzip({ level: 1 })
  if (encoding === 'deflate') return createDeflate({ level: 1 })
  return createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })
}

/** Sends the list, compressed on the fly: a bomb of 256 MB is a few hundred KB on the wire. */
function send(res: ServerResponse, size: number, encoding: Encoding, declareLength: boolean): void {
  const headers: Record<string, string | number> = { 'content-type': 'application/json' }
  if (encoding !== 'identity') headers['content-encoding'] = encoding
  else if (declareLength) headers['content-length'] = size
  res.writeHead(200, headers)
  const body = Readable.from(toolList(size))
  const done = encoding === 'identity' ? pipeline(body, res) : pipeline(body, encoder(encoding), res)
  // The gateway hangs up at its cap: the pipeline ends with the reset, as it should.
  done.catch(() => undefined)
}

const source = (baseUrl: string, format: RemoteSourceOptions['format'] = 'tools-list') =>
  ({ id: 'cms', baseUrl, format, required: true }) as const

const rss = () => process.memoryUsage().rss
const peakRss = () => process.resourceUsage().maxRSS * 1024

describe('remote sources: decoded bytes are capped (issue 41 class 2)', () => {
  test('generated sizes and encodings: at most the cap is served, past it the source fails naming the cap, memory stays bounded', async (t) => {
    let plan = { size: 0, encoding: 'identity' as Encoding, declareLength: false }
    const upstream = await startUpstream(t, (_received, res) =>
      send(res, plan.size, plan.encoding, plan.declareLength),
    )
    const before = { rss: rss(), peak: peakRss(), heap: process.memoryUsage().heapUsed }
    let largest = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1024, max: 256 * 1024 }),
        fc.oneof(
          fc.integer({ min: -64, max: 64 }).map((delta) => ({ delta })),
          fc.integer({ min: 8 * MB, max: 256 * MB }).map((bomb) => ({ bomb })),
        ),
        fc.constantFrom<Encoding>('identity', 'gzip', 'deflate', 'br'),
        fc.boolean(),
        async (cap, shape, encoding, declareLength) => {
          const size = 'bomb' in shape ? shape.bomb : Math.max(PREFIX.length + 2, cap + shape.delta)
          largest = Math.max(largest, size)
          plan = { size, encoding, declareLength }
          const reading = fetchRemoteTools(source(upstream.url), { maxBytes: cap, timeoutMs: 10_000 })
          if (size <= cap) {
            assert.deepEqual(
              (await reading).map((t) => t.name),
              ['node.create'],
            )
            return
          }
          await assert.rejects(reading, (err: Error & { code?: string }) => {
            assert.equal(err.name, 'RemoteSourceError')
            assert.equal(err.code, 'remote-source-too-large')
            assert.match(
              err.message,
              new RegExp(
                `remote source cms .*larger than ${cap} bytes \\(decoded\\).*limits\\.remoteSourceBytes`,
              ),
            )
            return true
          })
          // Reading stopped near the cap: what it held is gone, whatever the bomb's size.
          assert.ok(
            peakRss() - before.rss < 160 * MB,
            `peak RSS ${peakRss()} after a ${size}-byte ${encoding} body`,
          )
        },
      ),
      { numRuns: 40 },
    )
    const after = { rss: rss(), peak: peakRss(), heap: process.memoryUsage().heapUsed }
    t.diagnostic(
      `largest body ${Math.round(largest / MB)} MB decoded; RSS ${Math.round(before.rss / MB)} → ${Math.round(after.rss / MB)} MB, peak ${Math.round(after.peak / MB)} MB; heap used ${Math.round(before.heap / MB)} → ${Math.round(after.heap / MB)} MB`,
    )
  })

  test('jsonrpc-mcp: the cap holds for all pages together, each under it', async (t) => {
    const page = (n: number) =>
      JSON.stringify({
        tools: [{ name: `t${n}`, description: 'x'.repeat(3000), inputSchema: { type: 'object' } }],
        nextCursor: n < 4 ? String(n + 1) : null,
      })
    const upstream = await startUpstream(t, (received, res) => {
      const n = Number(new URL(received.target, 'http://x').searchParams.get('cursor') ?? 0)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(page(n))
    })
    const read = (maxBytes: number) =>
      fetchRemoteTools(source(upstream.url, 'jsonrpc-mcp'), { maxBytes, timeoutMs: 5_000 })
    assert.equal((await read(64 * 1024)).length, 5)
    await assert.rejects(
      read(10_000),
      /answers up to .*cursor=3 are larger than 10000 bytes \(decoded\) together/,
    )
  })

  test('a body trickling past the timeout is cut: the timeout bounds the body, not only the headers', {
    timeout: HANG_BOUND_MS,
  }, async (t) => {
    const upstream = await startUpstream(t, (_received, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write(PREFIX)
      const timer = setInterval(() => res.write('a'), 50)
      res.on('close', () => clearInterval(timer))
    })
    // The body never ends: only the timeout ends the fetch, and its message says so.
    await assert.rejects(
      fetchRemoteTools(source(upstream.url), { timeoutMs: 400 }),
      /did not answer within 0\.4 seconds/,
    )
  })
})

describe('in the gateway: a source over the cap fails alone', () => {
  const bombing = async (t: { after(fn: () => Promise<unknown>): void }) => {
    const state = { bomb: false }
    const upstream = await startUpstream(t, (_received, res) =>
      send(res, state.bomb ? 512 * MB : 2_000, 'gzip', false),
    )
    return { state, upstream }
  }

  test('named in /ready and /catalog, the other source and the spec files serving; required, it stops the start naming the cap', async (t) => {
    const bomb = await bombing(t)
    bomb.state.bomb = true
    const good = await bombing(t)
    const yaml = (required: boolean) =>
      [
        'limits: { remoteSourceBytes: 65536 }',
        'remoteSources:',
        `  - { id: bomb, baseUrl: "${bomb.upstream.url}", required: ${required} }`,
        `  - { id: good, baseUrl: "${good.upstream.url}" }`,
      ].join('\n')
    await assert.rejects(
      testApp(t, { TOOLGATE_CONFIG: await configFile(yaml(true)) }),
      /remote source bomb .*larger than 65536 bytes \(decoded\), over limits\.remoteSourceBytes/,
    )
    const app = await testApp(t, { TOOLGATE_CONFIG: await configFile(yaml(false)) })
    const ready = await app.inject('/ready')
    assert.equal(ready.statusCode, 200)
    assert.deepEqual(ready.json().remoteSources, [
      { id: 'bomb', status: 'failed', tools: 0 },
      { id: 'good', status: 'ok', tools: 1 },
    ])
    const broken = ready.json().brokenSources.find((s: { source: string }) => s.source === 'remote:bomb')
    assert.match(broken.problem, /larger than 65536 bytes \(decoded\), over limits\.remoteSourceBytes/)
    const catalog = (await app.inject('/catalog')).json()
    assert.equal(
      catalog.problems.find((p: { file: string }) => p.file === 'remote:bomb').code,
      'remote-source-too-large',
    )
    assert.ok(catalog.services.length >= 3, 'the shipped specs and the good source serve')
  })

  test('on a reload, a source that served and now sends a bomb keeps its last good tools (stale)', async (t) => {
    const cms = await bombing(t)
    const app = await testApp(t, {
      TOOLGATE_CONFIG: await configFile(
        `limits: { remoteSourceBytes: 65536 }\nremoteSources:\n  - { id: cms, baseUrl: "${cms.upstream.url}" }\n`,
      ),
    })
    cms.state.bomb = true
    await app.catalogStore.reload('manual')
    const ready = (await app.inject('/ready')).json()
    assert.deepEqual(ready.remoteSources, [{ id: 'cms', status: 'stale', tools: 1 }])
    const call = await app.inject({ method: 'POST', url: '/tools/cms_node_create', payload: { title: 'x' } })
    assert.notEqual(call.json().code, 'TG_ERR_TOOL_NOT_FOUND', 'the last good tool still serves')
  })
})
