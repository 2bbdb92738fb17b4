// Issue 17 class 1: parameters and body properties whose names are not valid argument keys
// (Twilio's `DateCreated<`, Google's `$.xgafv`, `filter[name]`, unicode, very long names) are
// renamed, never dropped: every input is reachable by a safe, unique key, and a real upstream
// receives the original wire name with the value.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { Tool } from '../../src/catalog/index.js'
import { ARGUMENT_KEY_PATTERN } from '../../src/catalog/input-schema.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'
import { type Received, startUpstream } from '../helpers/upstreams.js'

type Location = 'path' | 'query' | 'header' | 'cookie' | 'body'
interface Input {
  readonly in: Location
  readonly name: string
  readonly value: string
}

/** The key a wire name is offered under, from the binding. */
function keyOf(tool: Tool, where: Location, name: string): string | undefined {
  return Object.entries(tool.binding.arguments).find(
    ([, target]) => target.in === where && 'name' in target && target.name === name,
  )?.[0]
}

function decode(text: string): string {
  return decodeURIComponent(text)
}

/** What the upstream received for each location, wire names decoded. */
function receivedInputs(received: Received, template: readonly string[]) {
  const [pathPart, search = ''] = received.target.split('?')
  const segments = pathPart!.split('/').slice(1)
  const path = new Map(template.flatMap((name, i) => (name ? [[name, decode(segments[i]!)] as const] : [])))
  const query = new Map(
    search
      .split('&')
      .filter(Boolean)
      .map((pair) => pair.split('=').map(decode) as [string, string]),
  )
  const cookieHeader = received.headers.cookie ?? ''
  const cookie = new Map(
    cookieHeader
      .split('; ')
      .filter(Boolean)
      .map((pair) => pair.split('=').map(decode) as [string, string]),
  )
  const body =
    received.body.length > 0 ? (JSON.parse(received.body.toString()) as Record<string, unknown>) : {}
  return { path, query, cookie, body }
}

/** Names as published specs write them: operators, brackets, `$`, dots, spaces, unicode, very long ones. */
const wildName = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z]{1,10}[<>]=?$/),
  fc.constantFrom(
    '$.xgafv',
    '$top',
    'filter[name]',
    'filter[name][]',
    'a b',
    '日本語',
    'café',
    '<',
    '>',
    '$',
    '[]',
    '...',
    '_',
  ),
  // Names an object already has: each must stay a key, never a prototype or an inherited value.
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'),
  fc.string({ unit: 'grapheme-ascii', minLength: 60, maxLength: 90 }),
  // Few distinct keys for many names: sanitizing makes them clash, often several ways.
  fc.stringMatching(/^a[!*~^?<> ]{0,2}$/),
)
/** HTTP can only carry tokens as header names, so a header parameter's name is one. */
const headerName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'),
)
const pathName = wildName.filter((name) => !/[{}/#?%]/.test(name) && name.trim() !== '')
const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
const headerValue = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,8}[A-Za-z0-9]$/)

const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization', 'host', 'content-length'])
const GATEWAY_HEADERS =
  /^(host|content-length|content-type|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-authorization|authorization|cookie|accept|user-agent|x-request-id)$/i

const inputs = fc
  .record({
    path: fc.uniqueArray(fc.record({ name: pathName, value: text }), {
      maxLength: 3,
      selector: (i) => i.name,
    }),
    query: fc.uniqueArray(fc.record({ name: wildName, value: text }), {
      maxLength: 6,
      selector: (i) => i.name,
    }),
    header: fc.uniqueArray(fc.record({ name: headerName, value: headerValue }), {
      maxLength: 3,
      selector: (i) => i.name.toLowerCase(),
    }),
    cookie: fc.uniqueArray(fc.record({ name: wildName, value: text }), {
      maxLength: 3,
      selector: (i) => i.name,
    }),
    body: fc.uniqueArray(fc.record({ name: fc.oneof(wildName, fc.constant('')), value: text }), {
      maxLength: 6,
      selector: (i) => i.name,
    }),
  })
  .map((byLocation) =>
    (Object.entries(byLocation) as [Location, { name: string; value: string }[]][]).flatMap(([where, list]) =>
      list
        .filter(
          (item) =>
            where !== 'header' ||
            !(RESERVED_HEADERS.has(item.name.toLowerCase()) || GATEWAY_HEADERS.test(item.name)),
        )
        .map((item): Input => ({ in: where, ...item })),
    ),
  )

function specFor(list: readonly Input[]) {
  const pathNames = list.filter((i) => i.in === 'path').map((i) => i.name)
  const path = `/${['items', ...pathNames.map((name) => `{${name}}`)].join('/')}`
  const parameters = list
    .filter((i) => i.in !== 'body')
    .map((i) => ({ name: i.name, in: i.in, required: true, schema: { type: 'string' } }))
  const body = list.filter((i) => i.in === 'body')
  const schema = {
    type: 'object',
    properties: Object.fromEntries(body.map((i) => [i.name, { type: 'string' }])),
    required: body.map((i) => i.name),
  }
  const operation = {
    operationId: 'send',
    parameters,
    ...(body.length > 0
      ? { requestBody: { required: true, content: { 'application/json': { schema } } } }
      : {}),
    responses: ok,
  }
  return {
    path,
    template: ['items', ...pathNames].map((n, i) => (i === 0 ? '' : n)),
    doc: openapi({ [path]: { post: operation } }),
  }
}

describe('argument names: every input reachable by a safe key, sent under its wire name (issue 17 class 1)', () => {
  test("Twilio's range filters and Google's $.xgafv: renamed, described, and sent as the spec names them", async (t) => {
    const params = ['DateCreated', 'DateCreated<', 'DateCreated>', '$.xgafv', 'filter[name]'].map((name) => ({
      name,
      in: 'query',
      schema: { type: 'string' },
    }))
    const catalog = await catalogOf({
      'api.json': openapi({
        '/messages': { get: { operationId: 'list', parameters: params, responses: ok } },
      }),
    })
    const tool = toolById(catalog, 'api:list')
    assert.deepEqual(Object.keys(tool.binding.arguments), [
      'DateCreated',
      'DateCreated_lt',
      'DateCreated_gt',
      'xgafv',
      'filter_name',
    ])
    const properties = tool.inputSchema.properties as Record<string, { description?: string }>
    assert.equal(properties.DateCreated_lt?.description, 'Sent as query parameter "DateCreated<".')
    assert.equal(properties.xgafv?.description, 'Sent as query parameter "$.xgafv".')
    assert.deepEqual(problemsOf(catalog, 'argument-clash'), [], 'operators are words, so nothing clashes')
    assert.equal(problemsOf(catalog, 'parameter-key-sanitized').length, 4)
    const upstream = await startUpstream(t)
    const { call } = executorFor(t, catalog, { services: { api: { upstream: upstream.url } } })
    const outcome = await call(tool.id, {
      DateCreated_lt: '2024-01-31',
      DateCreated_gt: '2024-01-01',
      xgafv: '2',
      filter_name: 'x y',
    })
    assert.equal(outcome.status, 200, JSON.stringify(outcome))
    assert.equal(
      upstream.received[0]!.target,
      '/messages?DateCreated%3C=2024-01-31&DateCreated%3E=2024-01-01&%24.xgafv=2&filter%5Bname%5D=x%20y',
    )
  })

  test('property: generated names in every location → unique safe keys, and the upstream gets each wire name with its value', async (t) => {
    const upstream = await startUpstream(t)
    let runs = 0
    await fc.assert(
      fc.asyncProperty(inputs, async (list) => {
        runs++
        const { doc, template } = specFor(list)
        const catalog = await catalogOf({ 's.json': doc })
        const tool = toolById(catalog, 's:send')
        const keys = Object.keys(tool.binding.arguments)
        assert.equal(
          keys.length,
          list.length,
          `every input is an argument: ${JSON.stringify(tool.binding.arguments)}`,
        )
        assert.deepEqual(Object.keys(tool.inputSchema.properties as object).sort(), [...keys].sort())
        const args: Record<string, string> = {}
        for (const input of list) {
          const key = keyOf(tool, input.in, input.name)
          assert.ok(key !== undefined, `${input.in} ${JSON.stringify(input.name)} is reachable`)
          assert.match(key, ARGUMENT_KEY_PATTERN)
          const property = (tool.inputSchema.properties as Record<string, { description?: string }>)[key]!
          if (key !== input.name)
            assert.ok(property.description?.includes(JSON.stringify(input.name)), property.description)
          Object.defineProperty(args, key, { value: input.value, enumerable: true })
        }
        const { call } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
        const before = upstream.received.length
        const outcome = await call(tool.id, args)
        assert.equal(outcome.status, 200, JSON.stringify(outcome))
        assert.equal(upstream.received.length, before + 1)
        const got = receivedInputs(upstream.received.at(-1)!, template)
        for (const input of list) {
          const sent =
            input.in === 'header'
              ? upstream.received.at(-1)!.headers[input.name.toLowerCase()]
              : input.in === 'body'
                ? got.body[input.name]
                : got[input.in].get(input.name)
          assert.equal(sent, input.value, `${input.in} ${JSON.stringify(input.name)}`)
        }
      }),
      { numRuns: 100 },
    )
    t.diagnostic(`${runs} generated operations round-tripped`)
  })

  test('clashing renames never overwrite an input: undeclared path variables that sanitize alike', async () => {
    const catalog = await catalogOf({
      's.json': openapi({
        '/x/{a<}/{a>}/{a!}/{a?}/{a*}/{a~}/{a^}': { get: { operationId: 'get', responses: ok } },
      }),
    })
    const tool = toolById(catalog, 's:get')
    const names = Object.values(tool.binding.arguments).map((target) => ('name' in target ? target.name : ''))
    assert.deepEqual(names.sort(), ['a!', 'a*', 'a<', 'a>', 'a?', 'a~', 'a^'].sort())
    for (const key of Object.keys(tool.binding.arguments)) assert.match(key, ARGUMENT_KEY_PATTERN)
  })
})
