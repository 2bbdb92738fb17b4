// One test per rule of seed 003 (the normalized tool catalog), per extension and per safety default.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'

describe('seed 003: service records', () => {
  test('id defaults to the file name without extension, alias to the id, and title/servers come from the document', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': openapi(
        {},
        {
          info: { title: 'Tickets', version: '2.1' },
          servers: [{ url: 'https://{region}.example.com/v1', variables: { region: { default: 'eu' } } }],
        },
      ),
    })
    assert.deepEqual(catalog.services, [
      {
        id: 'tickets',
        alias: 'tickets',
        sourceId: 'tickets.yaml',
        title: 'Tickets',
        apiVersion: '2.1',
        servers: ['https://eu.example.com/v1'],
        securitySchemes: {},
      },
    ])
  })

  test('the id comes from configuration when a service names the source, and the alias too', async () => {
    const catalog = await catalogOf(
      { 'tickets.yaml': openapi({ '/t': { get: { operationId: 'listT', responses: ok } } }) },
      { services: { helpdesk: { source: 'tickets.yaml', alias: 'hd' } } },
    )
    assert.equal(catalog.services[0]?.id, 'helpdesk')
    assert.equal(catalog.services[0]?.alias, 'hd')
    assert.equal(catalog.tools[0]?.id, 'helpdesk:listT')
    assert.equal(catalog.tools[0]?.wireName, 'hd_list_t')
  })

  test('a configured service that no source provides is a warning naming it', async () => {
    const catalog = await catalogOf(
      { 'a.yaml': openapi({}) },
      { services: { ghost: { alias: 'g' } }, configFile: 'toolgate.yaml' },
    )
    const [problem] = problemsOf(catalog, 'service-config-unknown')
    assert.equal(problem?.file, 'toolgate.yaml')
    assert.match(problem?.message ?? '', /ghost/)
  })
})

describe('seed 003: tool IDs', () => {
  test('<service-id>:<operationId>', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': openapi({ '/tickets/{id}': { get: { operationId: 'getTicket', responses: ok } } }),
    })
    assert.equal(catalog.tools[0]?.id, 'tickets:getTicket')
  })

  test('without operationId: <service-id>:<method>:<raw-path>, with a warning', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': openapi({ '/tickets/{id}': { get: { responses: ok } } }),
    })
    assert.equal(catalog.tools[0]?.id, 'tickets:get:/tickets/{id}')
    assert.equal(problemsOf(catalog, 'operation-without-id')[0]?.pointer, '/paths/~1tickets~1{id}/get')
  })

  test('duplicate operationIds are detected; the later operation keeps serving under its method:path ID', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': { get: { operationId: 'dup', responses: ok } },
        '/y': { post: { operationId: 'dup', responses: ok } },
      }),
    })
    assert.deepEqual(catalog.tools.map((t) => t.id).sort(), ['a:dup', 'a:post:/y'])
    const [problem] = problemsOf(catalog, 'tool-id-duplicate')
    assert.equal(problem?.file, 'a.yaml')
    assert.equal(problem?.pointer, '/paths/~1y/post/operationId')
    assert.equal(new Set(catalog.tools.map((t) => t.wireName)).size, 2)
  })
})

describe('seed 003: command derivation', () => {
  const spec = openapi({
    '/tickets/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getTicket',
        tags: ['support', 'tickets'],
        summary: 'Get a ticket',
        description: 'Returns one ticket.',
        responses: ok,
      },
      put: {
        tags: ['support'],
        responses: ok,
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', properties: { title: { type: 'string' } } } },
            'application/xml': { schema: { type: 'object' } },
          },
        },
      },
    },
    '/reports': { get: { responses: ok } },
    head: {},
  })

  test('group: first tag, else the first static path segment; command name: operationId or method+path in kebab-case', async () => {
    const catalog = await catalogOf({ 't.yaml': spec })
    assert.equal(toolById(catalog, 't:getTicket').group, 'support')
    assert.equal(toolById(catalog, 't:getTicket').commandName, 'get-ticket')
    assert.equal(toolById(catalog, 't:get:/reports').group, 'reports')
    assert.equal(toolById(catalog, 't:get:/reports').commandName, 'get-reports')
  })

  test('title and description: summary, then summary joined with description', async () => {
    const tool = toolById(await catalogOf({ 't.yaml': spec }), 't:getTicket')
    assert.equal(tool.title, 'Get a ticket')
    assert.equal(tool.description, 'Get a ticket. Returns one ticket.')
  })

  test('parameters: path-level ones are inherited and path parameters are required', async () => {
    const tool = toolById(await catalogOf({ 't.yaml': spec }), 't:put:/tickets/{id}')
    assert.deepEqual(
      tool.parameters.map((p) => [p.name, p.in, p.required, p.style, p.explode]),
      [['id', 'path', true, 'simple', false]],
    )
  })

  test('request body: required flag, every content type and a schema snapshot per content type', async () => {
    const body = toolById(await catalogOf({ 't.yaml': spec }), 't:put:/tickets/{id}').requestBody
    assert.equal(body?.required, true)
    assert.deepEqual(body?.contentTypes, ['application/json', 'application/xml'])
    assert.deepEqual(Object.keys(body?.schemas ?? {}), ['application/json', 'application/xml'])
    assert.deepEqual(body?.schemas['application/json'], {
      type: 'object',
      properties: { title: { type: 'string' } },
    })
  })

  test('only GET, POST, PUT, PATCH and DELETE operations become tools', async () => {
    const catalog = await catalogOf({
      't.yaml': openapi({
        '/x': {
          get: { responses: ok },
          post: { responses: ok },
          put: { responses: ok },
          patch: { responses: ok },
          delete: { responses: ok },
          head: { responses: ok },
          options: { responses: ok },
          trace: { responses: ok },
        },
      }),
    })
    assert.deepEqual(catalog.tools.map((t) => t.method).sort(), ['delete', 'get', 'patch', 'post', 'put'])
  })
})

describe('seed 003: auth requirements', () => {
  const schemes = {
    components: {
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        basic: { type: 'http', scheme: 'Basic' },
        token: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        oauth: { type: 'oauth2', flows: {} },
      },
    },
  }

  test('schemes are normalized to name, type, scheme, in and parameter name', async () => {
    const catalog = await catalogOf({ 'a.yaml': openapi({}, schemes) })
    assert.deepEqual(catalog.services[0]?.securitySchemes, {
      key: { name: 'key', type: 'apiKey', in: 'header', paramName: 'X-Api-Key' },
      basic: { name: 'basic', type: 'http', scheme: 'basic' },
      token: { name: 'token', type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth: { name: 'oauth', type: 'oauth2' },
    })
  })

  test('operation security overrides the document default; security: [] means none; alternatives are kept', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi(
        {
          '/default': { get: { operationId: 'd', responses: ok } },
          '/public': { get: { operationId: 'p', security: [], responses: ok } },
          '/either': {
            get: { operationId: 'e', security: [{ basic: [] }, { key: [], oauth: ['read'] }], responses: ok },
          },
        },
        { ...schemes, security: [{ token: [] }] },
      ),
    })
    assert.deepEqual(toolById(catalog, 'a:d').auth, [{ schemes: [{ scheme: 'token', scopes: [] }] }])
    assert.deepEqual(toolById(catalog, 'a:p').auth, [])
    assert.deepEqual(toolById(catalog, 'a:e').auth, [
      { schemes: [{ scheme: 'basic', scopes: [] }] },
      {
        schemes: [
          { scheme: 'key', scopes: [] },
          { scheme: 'oauth', scopes: ['read'] },
        ],
      },
    ])
  })

  test('a requirement naming an undefined scheme is reported', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({ '/x': { get: { operationId: 'x', security: [{ nope: [] }], responses: ok } } }),
    })
    assert.equal(problemsOf(catalog, 'security-scheme-unknown')[0]?.pointer, '/paths/~1x/get/security')
  })
})

describe('seed 003: safety defaults', () => {
  const methods = openapi({
    '/x': Object.fromEntries(
      ['get', 'post', 'put', 'patch', 'delete'].map((m) => [m, { operationId: m, responses: ok }]),
    ),
  })
  const expected = {
    get: { readOnly: true, destructive: false, idempotent: true },
    post: { readOnly: false, destructive: false, idempotent: false },
    put: { readOnly: false, destructive: false, idempotent: true },
    patch: { readOnly: false, destructive: false, idempotent: false },
    delete: { readOnly: false, destructive: true, idempotent: true },
  }
  for (const [method, flags] of Object.entries(expected)) {
    test(`${method.toUpperCase()}: ${JSON.stringify(flags)}, approval off`, async () => {
      const tool = toolById(await catalogOf({ 'a.yaml': methods }), `a:${method}`)
      assert.deepEqual(tool.safety, { ...flags, openWorld: true, requiresApproval: false })
    })
  }

  test('x-cli-safety overrides the defaults; requiresApproval turns approval on', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'p',
            'x-cli-safety': { idempotent: true, requiresApproval: true, openWorld: false },
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(toolById(catalog, 'a:p').safety, {
      readOnly: false,
      destructive: false,
      idempotent: true,
      openWorld: false,
      requiresApproval: true,
    })
  })

  test('x-openai-isConsequential: true counts as requiresApproval (false changes nothing)', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: { operationId: 'p', 'x-openai-isConsequential': true, responses: ok },
          put: { operationId: 'q', 'x-openai-isConsequential': false, responses: ok },
        },
      }),
    })
    assert.equal(toolById(catalog, 'a:p').safety.requiresApproval, true)
    assert.equal(toolById(catalog, 'a:q').safety.requiresApproval, false)
  })

  test('a policy requires approval for matching tools', async () => {
    const catalog = await catalogOf(
      { 'a.yaml': methods },
      { policies: [{ tools: ['a:p*'], requiresApproval: true }] },
    )
    assert.deepEqual(
      catalog.tools
        .filter((t) => t.safety.requiresApproval)
        .map((t) => t.id)
        .sort(),
      ['a:patch', 'a:post', 'a:put'],
    )
  })
})

describe('seed 003: extensions', () => {
  const operation = (extensions: Record<string, unknown>) =>
    catalogOf({
      'a.yaml': openapi({ '/x': { get: { operationId: 'op', tags: ['t'], responses: ok, ...extensions } } }),
    }).then((c) => ({ catalog: c, tool: toolById(c, 'a:op') }))

  test('x-cli-group', async () =>
    assert.equal((await operation({ 'x-cli-group': 'admin' })).tool.group, 'admin'))
  test('x-cli-name', async () =>
    assert.equal((await operation({ 'x-cli-name': 'show' })).tool.commandName, 'show'))
  test('x-cli-description replaces the description', async () =>
    assert.equal(
      (await operation({ summary: 's', 'x-cli-description': 'For agents.' })).tool.description,
      'For agents.',
    ))
  test('x-cli-aliases', async () =>
    assert.deepEqual((await operation({ 'x-cli-aliases': ['ls', 'list'] })).tool.aliases, ['ls', 'list']))
  test('x-cli-hidden: in the catalog, not in discover', async () => {
    const { catalog, tool } = await operation({ 'x-cli-hidden': true })
    assert.equal(tool.hidden, true)
    assert.deepEqual(catalog.views.discover?.toolIds, [])
  })
  test('x-cli-ignore: flagged, in no view', async () => {
    const { catalog, tool } = await operation({ 'x-cli-ignore': true })
    assert.equal(tool.ignored, true)
    assert.deepEqual(catalog.views.discover?.toolIds, [])
  })
  test('x-cli-output (object and shorthand)', async () => {
    assert.deepEqual((await operation({ 'x-cli-output': { format: 'table', path: '/items' } })).tool.output, {
      format: 'table',
      path: '/items',
    })
    assert.deepEqual((await operation({ 'x-cli-output': 'text' })).tool.output, { format: 'text' })
  })
  test('x-cli-pagination', async () =>
    assert.deepEqual(
      (await operation({ 'x-cli-pagination': { style: 'cursor', param: 'cursor', nextPath: '/next' } })).tool
        .pagination,
      {
        style: 'cursor',
        param: 'cursor',
        nextPath: '/next',
      },
    ))
  test('x-cli-retry: object, integer shorthand, false', async () => {
    assert.deepEqual((await operation({ 'x-cli-retry': { maxAttempts: 3, baseDelayMs: 50 } })).tool.retry, {
      maxAttempts: 3,
      baseDelayMs: 50,
      maxDelayMs: 2000,
    })
    assert.deepEqual((await operation({ 'x-cli-retry': 2 })).tool.retry, {
      maxAttempts: 2,
      baseDelayMs: 100,
      maxDelayMs: 2000,
    })
    assert.deepEqual((await operation({ 'x-cli-retry': false })).tool.retry, {
      maxAttempts: 1,
      baseDelayMs: 0,
      maxDelayMs: 0,
    })
  })
  test('x-cli-safety', async () =>
    assert.equal((await operation({ 'x-cli-safety': { destructive: true } })).tool.safety.destructive, true))
  test('x-price (string, or a number of dollars)', async () => {
    assert.equal((await operation({ 'x-price': '$0.01/query' })).tool.price, '$0.01/query')
    assert.equal((await operation({ 'x-price': 0.5 })).tool.price, '$0.5')
  })
  test('parameter-level x-cli-name names the argument; the binding keeps the wire name', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          get: {
            operationId: 'op',
            parameters: [
              { name: 'X-Req-Prio', in: 'header', 'x-cli-name': 'priority', schema: { type: 'string' } },
            ],
            responses: ok,
          },
        },
      }),
    })
    assert.deepEqual(toolById(catalog, 'a:op').binding.arguments, {
      priority: { in: 'header', name: 'X-Req-Prio' },
    })
  })

  const malformed: [string, unknown][] = [
    ['x-cli-group', 42],
    ['x-cli-aliases', [1, 2]],
    ['x-cli-hidden', 'yes'],
    ['x-cli-output', { format: 'xml' }],
    ['x-cli-pagination', { style: 'scroll' }],
    ['x-cli-retry', { maxAttempts: 99 }],
    ['x-cli-safety', { readOnly: 'true' }],
    ['x-price', { amount: 1 }],
  ]
  for (const [key, value] of malformed) {
    test(`a malformed ${key} is a warning at its pointer and is ignored`, async () => {
      const { catalog, tool } = await operation({ [key]: value })
      const [problem] = problemsOf(catalog, 'extension-invalid')
      assert.equal(problem?.pointer, `/paths/~1x/get/${key}`)
      assert.equal(problem?.severity, 'warning')
      assert.equal(tool.hidden, false)
      assert.equal(tool.group, 't')
    })
  }
})

describe('seed 003: effective views', () => {
  const spec = openapi({
    '/tickets': {
      get: { operationId: 'listTickets', tags: ['tickets'], responses: ok },
      post: { operationId: 'createTicket', tags: ['tickets'], responses: ok },
    },
    '/tickets/{id}': {
      delete: {
        operationId: 'deleteTicket',
        tags: ['tickets'],
        parameters: [{ name: 'id', in: 'path', required: true }],
        responses: ok,
      },
    },
    '/admin': {
      get: { operationId: 'adminStats', tags: ['admin'], 'x-cli-hidden': true, responses: ok },
      post: { operationId: 'reindex', 'x-cli-ignore': true, responses: ok },
    },
  })
  const billing = openapi({
    '/invoices': { get: { operationId: 'listInvoices', 'x-cli-group': 'invoices', responses: ok } },
  })

  test('discover holds every tool that is neither hidden nor ignored', async () => {
    const catalog = await catalogOf({ 'tickets.yaml': spec, 'billing.yaml': billing })
    assert.deepEqual(catalog.views.discover?.toolIds, [
      'billing:listInvoices',
      'tickets:createTicket',
      'tickets:deleteTicket',
      'tickets:listTickets',
    ])
  })

  test('one more view per profile, selecting by service, group, tag, pattern and safety', async () => {
    const catalog = await catalogOf(
      { 'tickets.yaml': spec, 'billing.yaml': billing },
      {
        profiles: {
          readers: { description: 'read-only', safety: { readOnly: true } },
          billing: { services: ['billing'] },
          invoices: { groups: ['invoices'] },
          tagged: { tags: ['tickets'], exclude: ['*:delete*'] },
          patterns: { include: ['tickets_*_ticket'] },
          admin: { tags: ['admin'], includeHidden: true },
          nondestructive: { services: ['tickets'], safety: { destructive: false } },
        },
      },
    )
    const ids = (name: string) => catalog.views[name]?.toolIds
    assert.deepEqual(Object.keys(catalog.views), [
      'discover',
      'readers',
      'billing',
      'invoices',
      'tagged',
      'patterns',
      'admin',
      'nondestructive',
    ])
    assert.deepEqual(ids('readers'), ['billing:listInvoices', 'tickets:listTickets'])
    assert.equal(catalog.views.readers?.description, 'read-only')
    assert.deepEqual(ids('billing'), ['billing:listInvoices'])
    assert.deepEqual(ids('invoices'), ['billing:listInvoices'])
    assert.deepEqual(ids('tagged'), ['tickets:createTicket', 'tickets:listTickets'])
    assert.deepEqual(ids('patterns'), ['tickets:createTicket', 'tickets:deleteTicket'])
    assert.deepEqual(ids('admin'), ['tickets:adminStats'])
    assert.deepEqual(ids('nondestructive'), ['tickets:createTicket', 'tickets:listTickets'])
  })

  test('a profile naming an unknown service is reported; one named discover is refused', async () => {
    const catalog = await catalogOf(
      { 'tickets.yaml': spec },
      { profiles: { x: { services: ['nope'] }, discover: {} } },
    )
    assert.deepEqual(catalog.views.x?.toolIds, [])
    assert.equal(problemsOf(catalog, 'profile-invalid').length, 2)
  })
})
