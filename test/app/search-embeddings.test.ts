// Issue 43, the semantic signal: an OpenAI-compatible embeddings endpoint the operator configures.
// The endpoint here is a real HTTP server whose vectors are made of concepts (a few words share
// one dimension), so a task that shares no word with its tool can still be found by meaning. Every
// way the endpoint can fail — down, slow, an error status, an answer that is no JSON, the wrong
// count, values that are no numbers, vectors of another size — ranks by words, warns in /ready and
// counts in /metrics; no search fails.
import assert from 'node:assert/strict'
import { cp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { EmbeddingsFailed, vectorsOf } from '../../src/search/embeddings.js'
import { configFile, testApp } from '../helpers/app.js'
import { fromRoot } from '../helpers/paths.js'
import { parsePrometheusText } from '../helpers/prometheus.js'
import { tempDir } from '../helpers/specs-dir.js'
import { closedPort, type Received, startUpstream } from '../helpers/upstreams.js'

type T = Parameters<typeof startUpstream>[0]

/** Words that mean one thing share a dimension; every other word gets one of its own. */
const CONCEPTS: Record<string, number> = { annul: 0, void: 0, voids: 0, chit: 1, invoice: 1, invoices: 1 }
const DIMENSIONS = 64

function conceptVector(text: string, dimensions = DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0)
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let slot = CONCEPTS[word]
    if (slot === undefined) {
      let h = 7
      for (const c of word) h = (h * 31 + c.charCodeAt(0)) % 1_000_003
      slot = 8 + (h % (dimensions - 8))
    }
    vector[slot]! += 1
  }
  return vector
}

/** How the endpoint answers; a test switches it. */
type Mode = 'good' | 'status' | 'text' | 'count' | 'strings' | 'size' | 'slow' | 'huge'

async function embeddingsServer(t: T) {
  const state = { mode: 'good' as Mode, inputs: [] as string[] }
  const server = await startUpstream(t, async (received: Received, res) => {
    const { input } = JSON.parse(received.body.toString()) as { input: string[] }
    state.inputs.push(...input)
    const answer = (data: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(typeof data === 'string' ? data : JSON.stringify(data))
    }
    const vectors = input.map((text) => conceptVector(text))
    switch (state.mode) {
      case 'good':
        return answer({ data: vectors.map((embedding, index) => ({ index, embedding })) })
      case 'status':
        return answer({ error: { message: 'model overloaded' } }, 503)
      case 'text':
        return answer('<html>Bad gateway</html>')
      case 'count':
        return answer({ data: vectors.slice(1).map((embedding, index) => ({ index, embedding })) })
      case 'strings':
        return answer({
          data: vectors.map((embedding, index) => ({ index, embedding: embedding.map(String) })),
        })
      case 'size':
        return answer({ data: input.map((text, index) => ({ index, embedding: conceptVector(text, 32) })) })
      case 'huge':
        return answer(`{"data":[${input.map(() => '{"embedding":[1e400,0]}').join(',')}]}`)
      case 'slow':
        // Past appWith's timeout by far: a loaded CI box must not make the good path look slow.
        await new Promise((resolve) => setTimeout(resolve, 5_000))
        return answer({ data: vectors.map((embedding, index) => ({ index, embedding })) })
    }
  })
  return { ...server, state }
}

async function appWith(t: T, url: string, specsDir = fromRoot('specs'), timeoutMs = 1_500) {
  const yaml = [
    'search:',
    '  embeddings:',
    `    url: ${url}/v1`,
    '    model: concepts-1',
    '    apiKey: { value: sk-test-key }',
    `    timeoutMs: ${timeoutMs}`,
    '    batchSize: 8',
  ].join('\n')
  return testApp(t, { TOOLGATE_CONFIG: await configFile(yaml), SPECS_DIR: specsDir })
}

/** /ready's search part once the endpoint is done with the serving catalog (ok or failing). */
async function settled(app: FastifyInstance) {
  for (let waited = 0; waited < 10_000; waited += 20) {
    const { search } = (await app.inject('/ready')).json()
    if (search.embeddings.status !== 'indexing') return search
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.fail('the tools were neither embedded nor failed within 10 s')
}

const names = async (app: FastifyInstance, q: string) => {
  const res = await app.inject(`/tools/search?q=${encodeURIComponent(q)}&limit=5`)
  assert.equal(res.statusCode, 200, res.body)
  return (res.json().tools as { name: string }[]).map((tool) => tool.name)
}

const failures = async (app: FastifyInstance, stage: string) =>
  parsePrometheusText((await app.inject('/metrics')).body)
    .samples.filter((s) => s.name === 'toolgate_search_embeddings_failures_total' && s.labels.stage === stage)
    .reduce((sum, s) => sum + s.value, 0)

/** A task that shares no word with "Void an invoice", nor with any other tool: words find nothing. */
const TASK = 'annul that chit'

describe('tool search with an embeddings endpoint (issue 43)', () => {
  test('a task that shares no word with its tool is found by meaning, in REST, MCP search mode and the explorer', async (t) => {
    const endpoint = await embeddingsServer(t)
    const words = await testApp(t)
    assert.deepEqual(await names(words, TASK), [], 'words alone find nothing: only meaning can')
    const app = await appWith(t, endpoint.url)
    const search = await settled(app)
    assert.equal(search.ranking, 'lexical+semantic')
    assert.deepEqual(search.embeddings, {
      model: 'concepts-1',
      status: 'ok',
      vectors: app.catalogStore.current().search.size,
    })
    assert.equal(endpoint.received[0]!.headers.authorization, 'Bearer sk-test-key')
    assert.equal(endpoint.received[0]!.target, '/v1/embeddings')
    assert.equal((await names(app, TASK))[0], 'billing_void_invoice')

    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp?mode=search',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_tools', arguments: { query: TASK } },
      },
    })
    const found = mcp.json().result.structuredContent.tools as { name: string; confidence: number }[]
    assert.equal(found[0]!.name, 'billing_void_invoice')
    assert.equal(found[0]!.confidence, 0, 'no word of the task is a word of the tool')
    const explorer = (await app.inject(`/explorer/api/search?q=${encodeURIComponent(TASK)}`)).json()
    assert.equal(explorer.tools[0].name, 'billing_void_invoice')
    assert.equal(await failures(app, 'query'), 0)
  })

  test('a reload embeds only the tools it changed; the vectors of the rest come from the cache', async (t) => {
    const endpoint = await embeddingsServer(t)
    const dir = await tempDir(t)
    await cp(fromRoot('specs'), dir, { recursive: true })
    const app = await appWith(t, endpoint.url, dir)
    await settled(app)
    const before = endpoint.state.inputs.length
    assert.ok(before >= app.catalogStore.current().search.size)
    const file = join(dir, 'billing.json')
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(
        '"summary": "Get a customer\'s balance"',
        '"summary": "Get what a customer owes"',
      ),
    )
    const record = await app.catalogStore.reload('manual')
    assert.equal(record.swapped, true)
    assert.equal((await settled(app)).embeddings.status, 'ok')
    assert.deepEqual(endpoint.state.inputs.slice(before), [endpoint.state.inputs.at(-1)])
    assert.match(endpoint.state.inputs.at(-1)!, /^Get what a customer owes\. /)
  })

  for (const mode of ['status', 'text', 'count', 'strings', 'size', 'slow', 'huge'] as const)
    test(`an endpoint that answers ${mode} while indexing: words rank, /ready warns, the metric counts`, async (t) => {
      const endpoint = await embeddingsServer(t)
      endpoint.state.mode = mode === 'size' ? 'good' : mode
      const words = await testApp(t)
      const app = await appWith(t, endpoint.url)
      if (mode === 'size') {
        // Vectors of one size for the tools, another for the query: a query failure, not an index one.
        assert.equal((await settled(app)).embeddings.status, 'ok')
        endpoint.state.mode = 'size'
        assert.deepEqual(await names(app, 'pay an invoice'), await names(words, 'pay an invoice'))
        assert.equal(await failures(app, 'query'), 1)
        assert.match(
          (await app.inject('/ready')).json().search.embeddings.warning,
          /32 dimensions for tools of 64/,
        )
        // The endpoint back to its tools' size: the next query fuses again and /ready clears.
        endpoint.state.mode = 'good'
        assert.equal((await names(app, TASK))[0], 'billing_void_invoice')
        assert.equal((await app.inject('/ready')).json().search.embeddings.status, 'ok')
        return
      }
      const search = await settled(app)
      assert.equal(search.embeddings.status, 'failing')
      assert.match(search.embeddings.warning, /^indexing the tools failed, searches rank by words: /)
      assert.doesNotMatch(search.embeddings.warning, /sk-test-key/)
      assert.deepEqual(await names(app, TASK), await names(words, TASK))
      assert.deepEqual(await names(app, 'pay an invoice'), await names(words, 'pay an invoice'))
      assert.equal(await failures(app, 'index'), 1)
    })

  test('an endpoint that is down from the start, or goes down after indexing: every search answers by words', async (t) => {
    const down = await appWith(t, `http://127.0.0.1:${await closedPort()}`)
    const words = await testApp(t)
    assert.match((await settled(down)).embeddings.warning, /did not answer: ECONNREFUSED/)
    assert.deepEqual(await names(down, 'pay an invoice'), await names(words, 'pay an invoice'))

    const endpoint = await embeddingsServer(t)
    const app = await appWith(t, endpoint.url)
    await settled(app)
    await endpoint.close()
    assert.deepEqual(await names(app, 'pay an invoice'), await names(words, 'pay an invoice'))
    assert.equal(await failures(app, 'query'), 1)
  })

  test('hostile queries with the endpoint on: an answer or a 400, never a 500', async (t) => {
    const endpoint = await embeddingsServer(t)
    const app = await appWith(t, endpoint.url)
    await settled(app)
    for (const q of ['発票を取り消す', '🧾❌', 'the of and to', 'x'.repeat(10_240), ' ', '\u0000\u202e'])
      assert.ok(
        [200, 400].includes((await app.inject(`/tools/search?q=${encodeURIComponent(q)}`)).statusCode),
        q,
      )
  })

  test('property: any answer body is read as one unit vector per text, or refused with EmbeddingsFailed', () => {
    const body = fc.oneof(
      fc.json(),
      fc.string(),
      fc
        .array(
          fc.record(
            {
              index: fc.oneof(fc.nat(4), fc.integer(), fc.constant('0')),
              embedding: fc.oneof(
                fc.array(fc.oneof(fc.double(), fc.integer(), fc.constant(null)), { maxLength: 6 }),
                fc.jsonValue(),
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 5 },
        )
        .map((data) => JSON.stringify({ data })),
    )
    fc.assert(
      fc.property(body, fc.integer({ min: 1, max: 4 }), (text, count) => {
        let vectors: Float32Array[]
        try {
          vectors = vectorsOf(text, count, 'http://e/v1/embeddings')
        } catch (err) {
          assert.ok(err instanceof EmbeddingsFailed, String(err))
          assert.match(err.message, /^http:\/\/e\/v1\/embeddings answered /)
          return
        }
        assert.equal(vectors.length, count)
        for (const vector of vectors) {
          assert.equal(vector.length, vectors[0]!.length)
          const norm = vector.reduce((sum, value) => sum + value * value, 0)
          assert.ok(norm === 0 || Math.abs(norm - 1) < 1e-5, `norm ${norm}`)
        }
      }),
      {
        numRuns: 500,
        examples: [
          ['{"data":[{"embedding":[1e300,1e300]}]}', 1],
          ['{"data":[{"embedding":[5e-324]}]}', 1],
        ],
      },
    )
  })

  test('a configuration with a broken embeddings section is refused, naming the field', async (t) => {
    for (const yaml of [
      'search:\n  embeddings:\n    url: ftp://x\n    model: m',
      'search:\n  embeddings:\n    url: http://x',
      'search:\n  embeddings:\n    url: http://x\n    model: m\n    timeoutMs: 0',
      'search:\n  embeddings:\n    url: http://x\n    model: m\n    apiKey: { env: TOOLGATE_TEST_MISSING_KEY }',
    ])
      await assert.rejects(
        testApp(t, { TOOLGATE_CONFIG: await configFile(yaml) }),
        /search|embeddings|TOOLGATE_TEST_MISSING_KEY/,
      )
  })
})
