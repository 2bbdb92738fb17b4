// Issue 16, typed results over MCP: each tool with a JSON object answer lists an outputSchema and
// answers structuredContent that both SDK clients accept; a lying upstream is passed on and
// counted; the 2026-07-28 list results carry cache hints.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { FastifyInstance } from 'fastify'
import { configFile, exampleApp, testApp } from '../helpers/app.js'
import { MEMORY_DIR, memoryReader, openapi } from '../helpers/memory-catalog.js'
import { parsePrometheusText, sampleValue } from '../helpers/prometheus.js'
import { startUpstream } from '../helpers/upstreams.js'

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')

/** Valid arguments for every callable shipped tool that has an output schema (reindex is x-cli-ignore: no tool). */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  billing_create_invoice: {
    customer_id: 'CUS-1',
    currency: 'EUR',
    lines: [{ description: 'Workshop', quantity: 1, unit_price: 100 }],
  },
  billing_get_balance: { customerId: 'CUS-1' },
  billing_get_invoice: { invoiceId: 'INV-2001' },
  billing_list_invoices: {},
  billing_pay_invoice: { invoiceId: 'INV-2001', amount: 10, method: 'card' },
  billing_upload_receipt: { invoiceId: 'INV-2001', file: PNG, description: 'Receipt' },
  support_close_ticket: { ticketId: 'T-1003', resolution: 'Fixed' },
  support_escalate_unpaid_ticket: { ticketId: 'T-1001', invoiceId: 'INV-2001' },
  tickets_add_comment: { ticketId: 'T-1001', body: 'Looking into it.' },
  tickets_create_ticket: { title: 'Printer', description: 'It jams.', priority: 'normal' },
  tickets_escalate_ticket: { ticketId: 'T-1001', reason: 'VIP customer' },
  tickets_get_tickets_ticket_id_history: { ticketId: 'T-1001' },
  tickets_get_service_status: {},
  tickets_get_stats: {},
  tickets_get_ticket: { ticketId: 'T-1001' },
  tickets_list_tickets: {},
  tickets_replace_ticket: {
    ticketId: 'T-1002',
    title: 'Replaced',
    description: 'All new.',
    status: 'open',
    priority: 'low',
  },
  tickets_search_tickets: { q: 'printer' },
  tickets_update_ticket: { ticketId: 'T-1001', status: 'pending' },
  tickets_upload_attachment: { ticketId: 'T-1001', file: PNG, note: 'photo' },
}

/** The only tool of the shipped specs that needs approval: granted on every request (it changes nothing for the others). */
const APPROVAL = { 'x-toolgate-approval': 'tickets_escalate_ticket' }

interface ListedTool {
  name: string
  outputSchema?: Record<string, unknown>
}
interface CallResult {
  isError?: boolean
  structuredContent?: unknown
}
interface AnyClient {
  listTools(): Promise<{ tools: ListedTool[] }>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
}

/** Hidden tools (x-cli-hidden) are listed and callable in a profile that lets them in. */
const EVERYTHING = 'profiles:\n  everything: { includeHidden: true }\n'

/** The app's MCP endpoint, listening from the first call on. */
async function mcpUrl(app: FastifyInstance, query = '') {
  const address = app.server.listening ? undefined : await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  return new URL(`/mcp${query}`, address ?? `http://127.0.0.1:${port}`)
}

async function clientV2(t: { after(fn: () => Promise<unknown>): void }, app: FastifyInstance, query = '') {
  const client = new ClientV2(
    { name: 'toolgate-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  await client.connect(new TransportV2(await mcpUrl(app, query), { requestInit: { headers: APPROVAL } }))
  t.after(() => client.close())
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
  return client as unknown as AnyClient
}

async function clientV1(t: { after(fn: () => Promise<unknown>): void }, app: FastifyInstance, query = '') {
  const client = new ClientV1({ name: 'toolgate-test', version: '1.0.0' })
  await client.connect(new TransportV1(await mcpUrl(app, query), { requestInit: { headers: APPROVAL } }))
  t.after(() => client.close())
  return client as unknown as AnyClient
}

async function mismatches(app: FastifyInstance, service: string): Promise<number> {
  const metrics = parsePrometheusText((await app.inject('/metrics')).body)
  const counted = metrics.samples.some(
    (sample) => sample.name === 'toolgate_mcp_output_mismatches_total' && sample.labels.service === service,
  )
  return counted ? sampleValue(metrics, 'toolgate_mcp_output_mismatches_total', { service }) : 0
}

describe('output schemas of the shipped specs', () => {
  for (const [sdk, connect] of [
    ['SDK 2.x client at 2026-07-28', clientV2],
    ['SDK 1.x client at 2025-11-25', clientV1],
  ] as const) {
    test(`${sdk}: every tool with an outputSchema answers structuredContent that validates`, async (t) => {
      const { app } = await exampleApp(t, EVERYTHING)
      const client = await connect(t, app, '?profile=everything')
      const { tools } = await client.listTools()
      const typed = tools.filter((tool) => tool.outputSchema)
      assert.deepEqual(typed.map((tool) => tool.name).sort(), Object.keys(ARGUMENTS).sort())
      const ajv = new Ajv2020({ strict: false })
      for (const tool of typed) {
        assert.equal(tool.outputSchema!.type, 'object', tool.name)
        // The client itself throws on structuredContent that is missing or fails the schema.
        const result = (await client.callTool({
          name: tool.name,
          arguments: ARGUMENTS[tool.name]!,
        })) as CallResult
        assert.equal(result.isError, false, `${tool.name}: ${JSON.stringify(result)}`)
        const validate = ajv.compile(tool.outputSchema!)
        assert.ok(validate(result.structuredContent), `${tool.name}: ${ajv.errorsText(validate.errors)}`)
      }
      assert.equal(await mismatches(app, 'tickets'), 0)
      assert.equal(await mismatches(app, 'billing'), 0)
      assert.equal(await mismatches(app, 'support'), 0)
    })
  }

  test('?strict=true lists the same output schemas; tools without one say why in /catalog', async (t) => {
    const { app } = await exampleApp(t)
    const list = async (url: string) =>
      (
        await app.inject({
          method: 'POST',
          url,
          headers: { ...RAW_HEADERS, 'mcp-protocol-version': '2025-11-25' },
          payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        })
      ).json().result.tools as ListedTool[]
    const canonical = await list('/mcp')
    const strict = await list('/mcp?strict=true')
    assert.deepEqual(
      strict.map((tool) => [tool.name, tool.outputSchema]),
      canonical.map((tool) => [tool.name, tool.outputSchema]),
    )
    const catalog = (await app.inject('/catalog')).json() as {
      tools: { wireName: string; structuredOutput: { reason?: string; schema?: unknown } }[]
    }
    const reasons = Object.fromEntries(
      catalog.tools
        .filter((tool) => tool.structuredOutput.reason)
        .map((tool) => [tool.wireName, tool.structuredOutput.reason]),
    )
    assert.deepEqual(reasons, {
      billing_void_invoice: 'the 204 response has no content',
      tickets_delete_ticket: 'the 204 response has no content',
      tickets_download_attachment: 'the 200 response is not JSON (application/octet-stream)',
    })
  })
})

const RAW_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** A spec whose GET /thing says `id` is a string, an upstream that answers what the test says. */
async function lyingService(t: { after(fn: () => Promise<unknown>): void }, extraYaml = '') {
  let answer = '{"id":42,"name":"widget","extra":[1,2]}'
  let contentType = 'application/json'
  const upstream = await startUpstream(t, (_received, res) => {
    res.writeHead(200, { 'content-type': contentType })
    res.end(answer)
  })
  const spec = openapi(
    {
      '/thing': {
        get: {
          operationId: 'getThing',
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id'],
                    properties: { id: { type: 'string' }, name: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    },
    { servers: [{ url: upstream.url }] },
  )
  const env = {
    SPECS_DIR: MEMORY_DIR,
    ...(extraYaml ? { TOOLGATE_CONFIG: await configFile(extraYaml) } : {}),
  }
  const app = await testApp(t, env, memoryReader({ 'lie.yaml': spec }))
  const set = (body: string, type = 'application/json') => {
    answer = body
    contentType = type
  }
  return { app, set }
}

async function rawCall(app: FastifyInstance, name: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...RAW_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: {} } },
  })
  assert.equal(res.statusCode, 200)
  return res.json().result as {
    content: { type: string; text: string }[]
    structuredContent?: unknown
    isError: boolean
  }
}

describe('an upstream that breaks its spec', () => {
  test('a field of the wrong type: the whole answer as text, the part that matches as structuredContent, counted', async (t) => {
    const { app, set } = await lyingService(t)
    const result = await rawCall(app, 'lie_get_thing')
    assert.equal(result.isError, false)
    // Issue 42: structuredContent conforms (MCP: MUST), so no client throws; nothing is lost.
    assert.deepEqual(result.structuredContent, { name: 'widget', extra: [1, 2] })
    assert.equal(result.content[0]!.text, '{"id":42,"name":"widget","extra":[1,2]}')
    assert.match(result.content[1]!.text, /not as its spec says.*\/id must be string,null/)
    assert.equal(await mismatches(app, 'lie'), 1)
    // An answer that is no JSON object: the text as it came, structuredContent empty, counted too.
    set('[1,2,3]')
    const array = await rawCall(app, 'lie_get_thing')
    assert.deepEqual(array.structuredContent, {})
    assert.equal(array.content[0]!.text, '[1,2,3]')
    assert.match(array.content[1]!.text, /no JSON object/)
    set('plain words', 'text/plain')
    assert.equal((await rawCall(app, 'lie_get_thing')).content[0]!.text, 'plain words')
    assert.equal(await mismatches(app, 'lie'), 3)
    // What matches (nulls and unknown fields included: the schema is lenient) is not counted.
    set('{"id":null,"more":true}')
    const fine = await rawCall(app, 'lie_get_thing')
    assert.deepEqual(fine.structuredContent, { id: null, more: true })
    assert.equal(fine.content.length, 1)
    assert.equal(await mismatches(app, 'lie'), 3)
  })

  test('the SDK clients take the lie without throwing (they threw before issue 42)', async (t) => {
    const { app } = await lyingService(t)
    for (const connect of [clientV1, clientV2]) {
      const client = await connect(t, app)
      await client.listTools()
      const result = (await client.callTool({ name: 'lie_get_thing', arguments: {} })) as CallResult
      assert.equal(result.isError, false)
      assert.deepEqual(result.structuredContent, { name: 'widget', extra: [1, 2] })
    }
  })

  test('outputSchemas: false lists no outputSchema, still sends structuredContent, counts nothing', async (t) => {
    const { app } = await lyingService(t, 'services:\n  lie:\n    outputSchemas: false\n')
    for (const connect of [clientV1, clientV2]) {
      const client = await connect(t, app)
      const { tools } = await client.listTools()
      assert.equal(tools[0]!.outputSchema, undefined)
      const result = (await client.callTool({ name: 'lie_get_thing', arguments: {} })) as CallResult
      assert.deepEqual(result.structuredContent, { id: 42, name: 'widget', extra: [1, 2] })
    }
    assert.equal(await mismatches(app, 'lie'), 0)
  })
})

describe('2026-07-28 cache hints', () => {
  const modern = (method: string, params: Record<string, unknown> = {}) => ({
    method: 'POST' as const,
    url: '/mcp',
    headers: { ...RAW_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
  })

  test('open access: lists are public for a minute; 2025-era answers carry no cache fields', async (t) => {
    const app = await testApp(t)
    for (const method of ['tools/list', 'resources/list', 'prompts/list', 'server/discover']) {
      const res = await app.inject(modern(method))
      assert.equal(res.statusCode, 200, `${method}: ${res.body}`)
      const { ttlMs, cacheScope } = res.json().result
      assert.deepEqual({ ttlMs, cacheScope }, { ttlMs: 60_000, cacheScope: 'public' }, method)
    }
    const uri = 'toolgate://services/tickets'
    const request = modern('resources/read', { uri })
    const read = await app.inject({ ...request, headers: { ...request.headers, 'mcp-name': uri } })
    assert.equal(read.json().result.ttlMs, 60_000, read.body)
    const legacy = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...RAW_HEADERS, 'mcp-protocol-version': '2025-11-25' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    assert.equal(legacy.statusCode, 200)
    assert.equal('ttlMs' in legacy.json().result, false)
    assert.equal('cacheScope' in legacy.json().result, false)
  })

  test('with clients configured the list depends on the caller: private', async (t) => {
    const token = 'cache-hint-token-000001'
    const app = await testApp(t, {
      TOOLGATE_CONFIG: await configFile(
        `clients:\n  - id: one\n    token: { value: ${token} }\n    tools: ["tickets:*"]\n`,
      ),
    })
    const request = modern('tools/list')
    const res = await app.inject({
      ...request,
      headers: { ...request.headers, authorization: `Bearer ${token}` },
    })
    assert.equal(res.statusCode, 200, res.body)
    const { ttlMs, cacheScope } = res.json().result
    assert.deepEqual({ ttlMs, cacheScope }, { ttlMs: 60_000, cacheScope: 'private' })
  })
})
