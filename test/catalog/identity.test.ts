// Wire names, argument keys, the catalog version hash, immutability and purity.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ARGUMENT_KEY_PATTERN, sanitizeArgumentKey } from '../../src/catalog/input-schema.js'
import { assignWireNames, snakeCase, WIRE_NAME_PATTERN } from '../../src/catalog/wire-name.js'
import { catalogOf, ok, openapi, problemsOf } from '../helpers/memory-catalog.js'

describe('wire names (SPEC §1)', () => {
  test('snake_case of operationIds', () => {
    assert.equal(snakeCase('getTicketById'), 'get_ticket_by_id')
    assert.equal(snakeCase('users.get'), 'users_get')
    assert.equal(snakeCase('HTTPServerList'), 'http_server_list')
    assert.equal(snakeCase('list-all_items'), 'list_all_items')
  })

  test('<alias>_<operationId> with a dotted service id made safe', async () => {
    const catalog = await catalogOf({
      'api.github.com.json': openapi({
        '/repos': { get: { operationId: 'repos/list-for-org', responses: ok } },
      }),
    })
    assert.equal(catalog.services[0]?.id, 'api.github.com')
    assert.equal(catalog.tools[0]?.id, 'api.github.com:repos/list-for-org')
    assert.equal(catalog.tools[0]?.wireName, 'api_github_com_repos_list_for_org')
  })

  test('a verbatim snake_case operationId keeps the plain name in a clash; the other gets a hash of its tool ID', () => {
    const subjects = [
      { id: 's:getUser', alias: 's', operationId: 'getUser', method: 'get' as const, rawPath: '/a' },
      { id: 's:get_user', alias: 's', operationId: 'get_user', method: 'get' as const, rawPath: '/b' },
    ]
    const { names, adjusted } = assignWireNames(subjects)
    assert.equal(names.get('s:get_user'), 's_get_user')
    assert.match(names.get('s:getUser') ?? '', /^s_get_user_[0-9a-f]{8}$/)
    assert.deepEqual([...adjusted.keys()], ['s:getUser'])
    const reversed = assignWireNames([...subjects].reverse())
    assert.deepEqual([...reversed.names].sort(), [...names].sort(), 'order of operations does not matter')
  })

  test('when no clashing name is verbatim, all of them get suffixes; names still unique and valid', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          get: { operationId: 'users.get', responses: ok },
          post: { operationId: 'users-get', responses: ok },
        },
      }),
    })
    const names = catalog.tools.map((t) => t.wireName)
    assert.equal(new Set(names).size, 2)
    for (const name of names) assert.match(name, /^a_users_get_[0-9a-f]{8}$/)
    assert.equal(problemsOf(catalog, 'wire-name-adjusted').length, 2)
  })

  test('a name depends only on its service alias and operation: adding other operations never renames it', async () => {
    const one = await catalogOf({
      'a.yaml': openapi({ '/x': { get: { operationId: 'listX', responses: ok } } }),
    })
    const more = await catalogOf({
      'a.yaml': openapi({
        '/x': { get: { operationId: 'listX', responses: ok } },
        '/y': { get: { operationId: 'listY', responses: ok } },
      }),
      'b.yaml': openapi({ '/x': { get: { operationId: 'listX', responses: ok } } }),
    })
    assert.equal(one.tools[0]?.wireName, more.tools.find((t) => t.id === 'a:listX')?.wireName)
  })

  test('every name matches ^[a-zA-Z0-9_]{1,64}$ even for hostile operationIds', async () => {
    const ids = ['日本語', '!!!', 'a'.repeat(200), 'with spaces and/slashes', '123']
    const catalog = await catalogOf({
      'a.yaml': openapi(
        Object.fromEntries(ids.map((operationId, i) => [`/p${i}`, { get: { operationId, responses: ok } }])),
      ),
    })
    assert.equal(catalog.tools.length, ids.length)
    for (const tool of catalog.tools) assert.match(tool.wireName, WIRE_NAME_PATTERN)
    assert.equal(new Set(catalog.tools.map((t) => t.wireName)).size, ids.length)
  })
})

describe('argument keys', () => {
  test('sanitized to ^[a-zA-Z0-9_.-]{1,64}$, deterministic, long keys keep a hash', () => {
    for (const name of ['filter[name]', '$top', 'a b', '日本', 'x'.repeat(100), '[]', 'ok.key-1']) {
      assert.match(sanitizeArgumentKey(name), ARGUMENT_KEY_PATTERN, name)
      assert.equal(sanitizeArgumentKey(name), sanitizeArgumentKey(name))
    }
    assert.equal(sanitizeArgumentKey('ok.key-1'), 'ok.key-1')
    assert.notEqual(sanitizeArgumentKey('x'.repeat(100)), sanitizeArgumentKey('x'.repeat(101)))
  })
})

describe('catalog version', () => {
  const spec = (summary: string) => openapi({ '/x': { get: { operationId: 'x', summary, responses: ok } } })

  test('same input, same hash; a changed description, a new hash', async () => {
    const [a, b, c] = [
      await catalogOf({ 'a.yaml': spec('One') }),
      await catalogOf({ 'a.yaml': spec('One') }),
      await catalogOf({ 'a.yaml': spec('Two') }),
    ]
    assert.match(a.version, /^[0-9a-f]{16}$/)
    assert.equal(a.version, b.version)
    assert.notEqual(a.version, c.version)
  })

  test('key order and formatting of the source do not change the hash; a profile does', async () => {
    const a = await catalogOf({ 'a.yaml': spec('One') })
    const reordered = await catalogOf({
      'a.yaml': JSON.stringify(
        { paths: spec('One').paths, info: spec('One').info, openapi: '3.1.0' },
        null,
        4,
      ),
    })
    assert.equal(a.version, reordered.version)
    const profiled = await catalogOf(
      { 'a.yaml': spec('One') },
      { profiles: { p: { safety: { readOnly: true } } } },
    )
    assert.notEqual(a.version, profiled.version)
  })

  test('warnings alone do not change the version (what agents are served does)', async () => {
    const a = await catalogOf({ 'a.yaml': spec('One') })
    const withJunk = await catalogOf({ 'a.yaml': spec('One'), 'notes.txt': 'x' })
    assert.equal(a.version, withJunk.version)
    assert.notDeepEqual(a.problems, withJunk.problems)
  })
})

describe('the catalog value', () => {
  test('is deeply immutable', async () => {
    const catalog = await catalogOf({
      'a.yaml': openapi({
        '/x': {
          post: {
            operationId: 'x',
            requestBody: {
              content: {
                'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } },
              },
            },
            responses: ok,
          },
        },
      }),
    })
    assert.ok(Object.isFrozen(catalog))
    assert.ok(Object.isFrozen(catalog.tools[0]?.inputSchema.properties))
    assert.throws(() => {
      ;(catalog.tools as unknown as unknown[]).push({})
    }, TypeError)
  })

  test('building is a pure function of sources and configuration: two builds are deep-equal', async () => {
    const files = {
      'a.yaml': openapi({ '/x/{id}': { get: { responses: ok } } }),
      'b.json': {
        swagger: '2.0',
        info: { title: 'B', version: '1' },
        paths: {
          '/y': {
            post: {
              operationId: 'y',
              parameters: [{ name: 'b', in: 'body', schema: { type: 'object' } }],
              responses: ok,
            },
          },
        },
      },
    }
    assert.deepEqual(await catalogOf(files), await catalogOf(files))
  })
})
