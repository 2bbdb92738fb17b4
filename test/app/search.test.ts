// GET /tools/search (issue 15): ranked tools with their definitions in every format, access and
// profiles narrowing, and every bad input a clear 400 or an empty ranked list, never a 500.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { configFile, exampleApp, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, ok, openapi } from '../helpers/memory-catalog.js'

const TOKEN = 'billing-bot-token-000002'
const CLIENTS = `
profiles:
  readers: { safety: { readOnly: true } }
clients:
  - id: billing-bot
    token: { value: ${TOKEN} }
    tools: ["billing:*"]
`

interface Hit {
  name: string
  service: string
  score: number
  definition: Record<string, unknown>
}

describe('GET /tools/search', () => {
  test('ranked tools with scores; each definition is the one the whole document holds, in every format', async (t) => {
    const app = await testApp(t)
    const res = await app.inject('/tools/search?q=pay+an+invoice&limit=3')
    assert.equal(res.statusCode, 200)
    const body = res.json()
    assert.equal(body.format, 'openai')
    assert.equal(body.profile, 'discover')
    assert.equal(body.catalogVersion, (await app.inject('/version')).json().catalogVersion)
    const hits = body.tools as Hit[]
    assert.equal(hits.length, 3)
    assert.equal(hits[0]!.name, 'billing_pay_invoice')
    assert.ok(
      hits.every((hit, i) => i === 0 || hits[i - 1]!.score >= hit.score),
      'best first',
    )
    const documents: Record<string, [string, (tool: Record<string, unknown>) => unknown]> = {
      openai: ['/openai.json', (tool) => (tool.function as { name: string }).name],
      'openai-strict': ['/openai.json?strict=true', (tool) => (tool.function as { name: string }).name],
      claude: ['/claude.json', (tool) => tool.name],
      opal: ['/discovery', (tool) => tool.name],
    }
    for (const [format, [url, nameOf]] of Object.entries(documents)) {
      const found = (await app.inject(`/tools/search?q=pay+an+invoice&format=${format}`)).json()
        .tools as Hit[]
      const whole = (await app.inject(url)).json()
      const tools = (Array.isArray(whole) ? whole : whole.functions) as Record<string, unknown>[]
      for (const hit of found)
        assert.deepEqual(
          hit.definition,
          tools.find((tool) => nameOf(tool) === hit.name),
          `${format}: ${hit.name}`,
        )
    }
    const described = (await app.inject('/documentation/json')).json().paths['/tools/search']
    assert.deepEqual(described.get.parameters.map((p: { name: string }) => p.name).sort(), [
      'format',
      'limit',
      'profile',
      'q',
    ])
    const mcp = (await app.inject('/tools/search?q=pay+an+invoice&format=mcp&limit=1')).json().tools as Hit[]
    assert.equal(mcp[0]!.definition.name, 'billing_pay_invoice')
    assert.equal((mcp[0]!.definition.inputSchema as { type: string }).type, 'object')
  })

  test('bad input: a clear 400 or an empty ranked list, never a 500', async (t) => {
    const app = await testApp(t)
    const cases: [string, number, string?][] = [
      ['/tools/search', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=', 400, 'TG_ERR_SEARCH_QUERY_EMPTY'],
      ['/tools/search?q=%20%20%09', 400, 'TG_ERR_SEARCH_QUERY_EMPTY'],
      [`/tools/search?q=${'invoice+'.repeat(1_300)}`, 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&limit=0', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&limit=-3', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&limit=1e99', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&limit=ten', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&limit=2.5', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&format=yaml', 400, 'FST_ERR_VALIDATION'],
      ['/tools/search?q=invoice&profile=nope', 400, 'TG_ERR_PROFILE_UNKNOWN'],
      ['/tools/search?q=invoice&profile=toString', 400, 'TG_ERR_PROFILE_UNKNOWN'],
      ['/tools/search?q=invoice&q=ticket', 400, 'FST_ERR_VALIDATION'],
    ]
    for (const [url, status, code] of cases) {
      const res = await app.inject(url)
      assert.equal(res.statusCode, status, `${url.slice(0, 80)}: ${res.body.slice(0, 200)}`)
      assert.equal(res.json().code, code, url.slice(0, 80))
      assert.ok(res.json().error.length > 20, url.slice(0, 80))
    }
    for (const q of [
      '*** AND () OR NOT',
      '"invoice" -ticket +pay ~2 ^3 title:pay',
      '%00%01',
      '🙂🙂',
      'zzzzqqqq',
    ]) {
      const res = await app.inject(`/tools/search?q=${encodeURIComponent(q)}`)
      assert.equal(res.statusCode, 200, `${q}: ${res.body.slice(0, 200)}`)
      assert.ok(Array.isArray(res.json().tools), q)
    }
    const operators = (await app.inject('/tools/search?q=title:pay%20AND%20invoice*')).json().tools as Hit[]
    assert.equal(operators[0]?.name, 'billing_pay_invoice', 'operators are words like any other')
  })

  test('a profile and a client token narrow what is found', async (t) => {
    const { app } = await exampleApp(t, CLIENTS)
    const names = async (url: string, headers = {}) => {
      const res = await app.inject({ url, headers })
      assert.equal(res.statusCode, 200, res.body)
      return (res.json().tools as Hit[]).map((hit) => hit.name)
    }
    const everything = await names('/tools/search?q=delete+ticket+invoice&limit=50')
    assert.ok(everything.includes('tickets_delete_ticket'))
    const readers = await names('/tools/search?q=delete+ticket+invoice&limit=50&profile=readers')
    assert.ok(readers.length > 0 && !readers.includes('tickets_delete_ticket'))
    const billing = await names('/tools/search?q=delete+ticket+invoice&limit=50', {
      authorization: `Bearer ${TOKEN}`,
    })
    assert.ok(billing.length > 0 && billing.every((name) => name.startsWith('billing_')))
    const refused = await app.inject({
      url: '/tools/search?q=ticket',
      headers: { authorization: 'Bearer not-a-known-token-at-all' },
    })
    assert.equal(refused.statusCode, 401)
  })

  test('a catalog of one tool or none: a ranked list of at most one, or empty', async (t) => {
    const one = openapi({
      '/ping': { get: { operationId: 'ping', summary: 'Ping the server', responses: ok } },
    })
    const app = await testApp(t, { SPECS_DIR: MEMORY_DIR }, memoryReader({ 'one.yaml': one }))
    const found = (await app.inject('/tools/search?q=ping')).json().tools as Hit[]
    assert.equal(found.length, 1)
    assert.match(found[0]!.name, /_ping$/)
    assert.deepEqual((await app.inject('/tools/search?q=invoice')).json().tools, [])
    const none = await testApp(
      t,
      { SPECS_DIR: MEMORY_DIR, TOOLGATE_CONFIG: await configFile('') },
      memoryReader({ 'empty.yaml': openapi({}) }),
    )
    const res = await none.inject('/tools/search?q=anything')
    assert.equal(res.statusCode, 200)
    assert.deepEqual(res.json().tools, [])
  })
})
