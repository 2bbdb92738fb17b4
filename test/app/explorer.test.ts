// The explorer (issue 19): its page and assets, and the JSON it reads under /explorer/api/.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import fc from 'fast-check'
import { EXPLORER_CSP } from '../../plugins/explorer.js'
import { createArgumentValidator } from '../../src/executor/index.js'
import { exampleArguments } from '../../src/explorer/example-arguments.js'
import { configFile, exampleApp, testApp } from '../helpers/app.js'

const OPERATOR = 'explorer-operator-token-01'
const CALLER = 'explorer-caller-token-0002'
const CLIENTS = `
clients:
  - id: ops
    token: { sha256: ${createHash('sha256').update(OPERATOR).digest('hex')} }
    operator: true
  - id: caller
    token: { value: ${CALLER} }
    tools: ["tickets:*"]
`

test('GET /explorer: the page with a strict CSP, an ETag, brotli, and 304 on revalidation', async (t) => {
  const app = await testApp(t)
  const page = await app.inject('/explorer')
  assert.equal(page.statusCode, 200)
  assert.match(page.headers['content-type'] as string, /^text\/html/)
  assert.equal(page.headers['content-security-policy'], EXPLORER_CSP)
  assert.match(EXPLORER_CSP, /script-src 'self'(;|$)/, 'no inline script, no eval, no CDN')
  assert.doesNotMatch(EXPLORER_CSP, /unsafe-|https?:/)
  assert.equal(page.headers['x-content-type-options'], 'nosniff')
  // A classic script before the stylesheet, importing the page's modules: they run when they arrive,
  // not after the stylesheet or the first frame, as a <script type="module"> would (bench row 8).
  const boot = page.body.indexOf('<script src="/explorer/assets/boot.js"></script>')
  assert.ok(boot > 0 && boot < page.body.indexOf('rel="stylesheet"'), 'boot.js comes before the stylesheet')
  for (const module of ['api.js', 'app.js'])
    assert.match(page.body, new RegExp(`<link rel="modulepreload" href="/explorer/assets/${module}">`))
  const booted = await app.inject('/explorer/assets/boot.js')
  assert.match(booted.headers['content-type'] as string, /^text\/javascript/)
  assert.doesNotMatch(booted.body, /^\s*(import|export)\s/m, 'a classic script: no static import or export')
  assert.ok(
    booted.body.indexOf("import('./api.js')") < booted.body.indexOf("import('./app.js')"),
    'api.js, which asks for the first view’s data, is imported on its own first',
  )
  assert.doesNotMatch(page.body, /<script>|<style|style="/, 'nothing inline for the CSP to refuse')
  const etag = page.headers.etag as string
  assert.equal((await app.inject({ url: '/explorer', headers: { 'if-none-match': etag } })).statusCode, 304)
  const br = await app.inject({ url: '/explorer/assets/app.js', headers: { 'accept-encoding': 'br' } })
  assert.equal(br.statusCode, 200)
  assert.equal(br.headers['content-encoding'], 'br')
  assert.match(br.headers['content-type'] as string, /^text\/javascript/)
})

test('every asset the page imports is served, the validator included; nothing else is', async (t) => {
  const app = await testApp(t)
  const seen = new Set<string>()
  const queue = ['boot.js']
  while (queue.length > 0) {
    const name = queue.shift()!
    if (seen.has(name)) continue
    seen.add(name)
    const asset = await app.inject(`/explorer/assets/${name}`)
    assert.equal(asset.statusCode, 200, name)
    for (const [, spec] of asset.body.matchAll(/(?:\bfrom\s+|\bimport\(\s*)'(\.\/[^']+)'/g)) {
      const base = name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : ''
      queue.push(new URL(spec!, `http://x/${base}`).pathname.slice(1))
    }
  }
  assert.ok(seen.has('vendor/json-schema/index.js'), 'the page checks arguments with @cfworker/json-schema')
  assert.ok(seen.size >= 10)
  for (const hostile of ['../package.json', '..%2F..%2Fpackage.json', 'app.ts', '%00', 'vendor/app.js']) {
    const answer = await app.inject(`/explorer/assets/${hostile}`)
    assert.equal(answer.statusCode, 404, hostile)
    assert.equal(answer.json().code, 'TG_ERR_ROUTE_NOT_FOUND')
  }
})

test('GET / links to the explorer: JSON for API clients, a redirect for a browser', async (t) => {
  const app = await testApp(t)
  const json = await app.inject({ url: '/', headers: { accept: 'application/json' } })
  assert.equal(json.statusCode, 200)
  assert.equal(json.json().links.explorer, '/explorer')
  const browser = await app.inject({
    url: '/',
    headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
  })
  assert.equal(browser.statusCode, 303)
  assert.equal(browser.headers.location, '/explorer')
})

test('/explorer/api: overview, tool list, one tool, search and budgets read the catalog', async (t) => {
  const { app } = await exampleApp(t)
  const version = (await app.inject('/version')).json().catalogVersion
  const overview = (await app.inject('/explorer/api/overview')).json()
  assert.equal(overview.catalogVersion, version)
  assert.deepEqual(
    overview.sources.map((s: { sourceId: string }) => s.sourceId),
    ['billing.json', 'support.arazzo.yaml', 'tickets.yaml'],
  )
  assert.equal(overview.access, 'open')

  const list = (await app.inject('/explorer/api/tools')).json()
  const discovery = (await app.inject('/discovery')).json()
  assert.equal(list.catalogVersion, version)
  const discover = list.profiles.find((p: { name: string }) => p.name === 'discover')
  assert.deepEqual(
    discover.tools.map((i: number) => list.tools[i].name).sort(),
    discovery.functions.map((f: { name: string }) => f.name).sort(),
    'the discover profile lists what /discovery serves',
  )
  const remove = list.tools.find((row: { name: string }) => row.name === 'tickets_delete_ticket')
  assert.deepEqual(
    { safety: remove.safety, approval: remove.approval, service: list.services[remove.service].id },
    { safety: 'destructive', approval: true, service: 'tickets' },
  )

  const tool = (await app.inject('/explorer/api/tools/tickets_get_ticket')).json()
  assert.deepEqual(tool.source, {
    file: 'tickets.yaml',
    pointer: '/paths/~1tickets~1{ticketId}/get',
    method: 'GET',
    path: '/tickets/{ticketId}',
    operationId: 'getTicket',
  })
  assert.deepEqual(
    tool.arguments.map((a: { name: string; in: string; required: boolean }) => [a.name, a.in, a.required]),
    [['ticketId', 'path', true]],
  )
  assert.deepEqual(tool.example, { ticketId: 'T-1001' })
  assert.equal(tool.exampleValid, true)
  assert.deepEqual(
    tool.renderings.map((r: { format: string }) => r.format),
    ['opal', 'openai', 'openai-strict', 'claude', 'mcp'],
  )
  for (const format of ['opal', 'openai', 'openai-strict', 'claude', 'mcp']) {
    const rendering = tool.renderings.find((r: { format: string }) => r.format === format)
    const found = (await app.inject(`/tools/search?q=get+a+ticket&format=${format}&limit=50`)).json()
    const same = found.tools.find((hit: { name: string }) => hit.name === 'tickets_get_ticket')
    assert.deepEqual(rendering.definition, same.definition, `${format}: the documents' own definition`)
    assert.equal(rendering.bytes, Buffer.byteLength(JSON.stringify(rendering.definition)))
    assert.ok(rendering.tokens > 10 && rendering.tokens < rendering.bytes, `${format}: tokens counted`)
  }
  assert.equal((await app.inject('/explorer/api/tools/tickets:getTicket')).json().name, 'tickets_get_ticket')
  const missing = await app.inject('/explorer/api/tools/no_such_tool')
  assert.equal(missing.statusCode, 404)
  assert.equal(missing.json().code, 'TG_ERR_TOOL_NOT_FOUND')

  const search = (await app.inject('/explorer/api/search?q=pay+an+invoice')).json()
  assert.equal(search.tools[0].name, 'billing_pay_invoice')
  assert.equal((await app.inject('/explorer/api/search?q=%20')).json().code, 'TG_ERR_SEARCH_QUERY_EMPTY')
  assert.equal((await app.inject('/explorer/api/search?q=x&limit=501')).statusCode, 400)

  const budgets = (await app.inject('/explorer/api/budgets')).json()
  const sizes = (await app.inject('/catalog')).json().sizes
  assert.deepEqual(budgets.profiles[0].sizes, sizes.discover)
  assert.ok(budgets.profiles[0].sizes.openai.tokens > budgets.profiles[0].sizes['openai-deferred'].tokens)
})

test('a broken spec: the overview marks it failed with its problem; a dangling $ref is named by JSON pointer', async (t) => {
  const specs: Record<string, string> = {
    'good.yaml':
      'openapi: 3.1.0\ninfo: { title: Good, version: "1" }\npaths:\n  /a: { get: { operationId: a, responses: { "200": { description: ok } } } }\n',
    'dangling.yaml':
      'openapi: 3.1.0\ninfo: { title: Dangling, version: "1" }\npaths:\n  /b: { get: { operationId: b, responses: { "200": { $ref: "#/components/responses/Nowhere" } } } }\n',
    'broken.yaml':
      'openapi: 3.1.0\ninfo: { title: Broken, version: "1" }\npaths:\n  /c: { get: { operationId: c\n   responses: [ }\n',
  }
  const reader = {
    listFiles: async () => Object.keys(specs),
    readText: async (file: string) => specs[file.slice(file.lastIndexOf('/') + 1)]!,
  }
  const app = await testApp(t, {}, reader)
  const overview = (await app.inject('/explorer/api/overview')).json()
  const source = (id: string) => overview.sources.find((s: { sourceId: string }) => s.sourceId === id)
  assert.equal(source('good.yaml').status, 'ok')
  assert.equal(source('broken.yaml').status, 'failed')
  assert.equal(overview.counts.errors, 1)
  assert.match(source('broken.yaml').problems[0].message, /not valid YAML at line 4/)
  assert.deepEqual(
    source('dangling.yaml').problems.map((p: { pointer: string; code: string }) => [p.code, p.pointer]),
    [['ref-dangling', '/paths/~1b/get/responses/200']],
  )
})

test('production: the page is served to anyone, its data only to an operator; calls from it need a caller token', async (t) => {
  const { app } = await exampleApp(t, CLIENTS, { NODE_ENV: 'production' })
  assert.equal((await app.inject('/explorer')).statusCode, 200, 'the page holds no data')
  assert.equal((await app.inject('/explorer/assets/app.js')).statusCode, 200)
  for (const url of [
    '/explorer/api/overview',
    '/explorer/api/tools',
    '/explorer/api/tools/tickets_get_ticket',
    '/explorer/api/search?q=ticket',
    '/explorer/api/budgets',
  ]) {
    assert.equal((await app.inject(url)).statusCode, 401, url)
    const caller = await app.inject({ url, headers: { authorization: `Bearer ${CALLER}` } })
    assert.equal(caller.statusCode, 403, url)
    assert.equal(caller.json().code, 'TG_ERR_ACCESS_OPERATOR_ONLY')
    assert.equal(
      (await app.inject({ url, headers: { authorization: `Bearer ${OPERATOR}` } })).statusCode,
      200,
      url,
    )
  }
})

test('production without clients: the explorer API is closed with the fix named', async (t) => {
  const app = await testApp(t, { NODE_ENV: 'production', TOOLGATE_CONFIG: await configFile('{}\n') })
  const refused = await app.inject('/explorer/api/overview')
  assert.equal(refused.statusCode, 403)
  assert.equal(refused.json().code, 'TG_ERR_ACCESS_CLOSED')
})

/** Schemas of the kinds specs hold: typed, bounded, formatted, patterned, enumerated, nested. */
const leafSchema = fc.oneof(
  fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 12 }) }),
  fc.record({ type: fc.constant('string'), maxLength: fc.integer({ min: 1, max: 5 }) }),
  fc.record({
    type: fc.constant('string'),
    format: fc.constantFrom('date-time', 'date', 'email', 'uri', 'uuid', 'ipv4', 'hostname'),
  }),
  fc.record({
    type: fc.constant('string'),
    pattern: fc.constantFrom(
      '^[A-Z]{3}-[0-9]{2,4}$',
      '^(cus|sub)_[a-zA-Z0-9]{8}$',
      '^\\d+(\\.\\d+)?$',
      '^[a-z][a-z0-9-]*$',
    ),
  }),
  fc.record({
    type: fc.constantFrom('integer', 'number'),
    minimum: fc.integer({ min: -50, max: 50 }),
    maximum: fc.integer({ min: 51, max: 500 }),
  }),
  fc.record({ type: fc.constant('integer'), exclusiveMinimum: fc.integer({ min: 0, max: 9 }) }),
  fc.record({ enum: fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }) }),
  fc.record({ type: fc.constant('boolean') }),
  fc.record({ type: fc.constant(['string', 'null']) }),
)
const objectSchema = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leafSchema, tie('object'), tie('array')),
  array: fc.record({
    type: fc.constant('array'),
    minItems: fc.integer({ min: 0, max: 3 }),
    items: tie('node'),
  }),
  object: fc
    .dictionary(
      fc.constantFrom('id', 'name', 'limit', 'constructor', 'toString', 'a b', 'x-y'),
      tie('node'),
      {
        maxKeys: 5,
      },
    )
    .chain((properties) =>
      fc
        .subarray(Object.keys(properties))
        .map((required) => ({ type: 'object', properties, required, additionalProperties: false })),
    ),
})).object

test('the example arguments satisfy the schema they are built from (generated schemas)', () => {
  const validator = createArgumentValidator()
  fc.assert(
    fc.property(objectSchema, (schema) => {
      const tool = { id: `t:${JSON.stringify(schema)}`, inputSchema: schema } as never
      const example = exampleArguments(schema as never)
      const checked = validator.check(tool, example)
      assert.ok(
        checked.ok,
        `${JSON.stringify(example)} against ${JSON.stringify(schema)}: ${JSON.stringify(checked)}`,
      )
    }),
    { numRuns: 300 },
  )
})

test('the example arguments: given examples first, cycles cut, spec keys kept as keys', () => {
  assert.deepEqual(
    exampleArguments({
      type: 'object',
      required: ['a', 'b', 'c'],
      properties: {
        a: { type: 'string', examples: ['given'], default: 'not this' },
        b: { type: 'integer', default: 7 },
        c: { type: 'string', enum: [null, 'open'] },
      },
    }),
    { a: 'given', b: 7, c: 'open' },
  )
  const cyclic = {
    type: 'object',
    required: ['node'],
    properties: { node: { $ref: '#/$defs/Node' } },
    $defs: { Node: { type: 'object', required: ['next'], properties: { next: { $ref: '#/$defs/Node' } } } },
  }
  assert.deepEqual(JSON.parse(JSON.stringify(exampleArguments(cyclic))), { node: { next: null } })
  const hostile = exampleArguments({
    type: 'object',
    required: ['__proto__'],
    properties: { ['__proto__']: { type: 'string' } },
  })
  assert.deepEqual(Object.keys(hostile), ['__proto__'])
  assert.equal(Object.getPrototypeOf({}).polluted, undefined)
})

test('the page’s numbers read as Intl’s en format: integers grouped without Intl, the rest by it (generated numbers)', async () => {
  // The page's module as the browser gets it (dist/explorer/dom.js): it touches no DOM until called.
  const dom = new URL('../../explorer/dom.js', import.meta.url).href
  const { formatNumber } = (await import(dom)) as { formatNumber(n: number): string }
  const intl = new Intl.NumberFormat('en')
  for (const n of [
    0,
    -0,
    7,
    -7,
    999,
    1000,
    -1000,
    2113,
    1_234_567,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
  ])
    assert.equal(formatNumber(n), intl.format(n), String(n))
  fc.assert(
    fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double()), (n) => {
      assert.equal(formatNumber(n), intl.format(n), String(n))
    }),
    { numRuns: 2000 },
  )
})
