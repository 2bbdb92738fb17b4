import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  buildKeepingLastGood,
  diffCatalogs,
  type LastGoodSources,
  loadSpecsDirectory,
} from '../../src/catalog/index.js'
import { MEMORY_DIR, memoryReader, ok, openapi, problemsOf } from '../helpers/memory-catalog.js'

const tickets = (extra: Record<string, unknown> = {}) =>
  openapi({
    '/tickets': { get: { operationId: 'listTickets', responses: ok } },
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: ok,
      },
    },
    ...extra,
  })
const billing = openapi({ '/invoices': { get: { operationId: 'listInvoices', responses: ok } } })

async function rebuild(files: Record<string, unknown>, lastGood: LastGoodSources = new Map()) {
  return buildKeepingLastGood(await loadSpecsDirectory(MEMORY_DIR, memoryReader(files)), lastGood, {})
}

test('a file that breaks keeps serving its last good version, marked stale, its new errors reported', async () => {
  const first = await rebuild({ 'tickets.yaml': tickets(), 'billing.yaml': billing })
  const broken = await rebuild(
    { 'tickets.yaml': 'openapi: 3.1.0\npaths: [', 'billing.yaml': billing },
    first.lastGood,
  )

  assert.deepEqual(broken.stale, ['tickets.yaml'])
  assert.equal(broken.catalog.version, first.catalog.version, 'the catalog serving does not change')
  assert.deepEqual(
    broken.catalog.tools.map((tool) => tool.id),
    first.catalog.tools.map((tool) => tool.id),
  )
  const report = broken.catalog.sources.find((source) => source.sourceId === 'tickets.yaml')
  assert.deepEqual(
    { status: report?.status, tools: report?.tools, errors: report?.errors },
    {
      status: 'stale',
      tools: 2,
      errors: 1,
    },
  )
  assert.equal(problemsOf(broken.catalog, 'source-parse-error')[0]?.file, 'tickets.yaml')
  assert.equal(problemsOf(broken.catalog, 'source-kept-last-good')[0]?.file, 'tickets.yaml')
  assert.ok(broken.lastGood.has('tickets.yaml'), 'the last good version is remembered for the next reload')
})

test('fixing a stale file serves the fix; deleting a file removes its tools (nothing to keep)', async () => {
  const first = await rebuild({ 'tickets.yaml': tickets(), 'billing.yaml': billing })
  const broken = await rebuild({ 'tickets.yaml': '{', 'billing.yaml': billing }, first.lastGood)
  const fixed = await rebuild(
    {
      'tickets.yaml': tickets({
        '/tickets/{id}/close': { post: { operationId: 'closeTicket', responses: ok } },
      }),
      'billing.yaml': billing,
    },
    broken.lastGood,
  )
  assert.deepEqual(fixed.stale, [])
  assert.ok(fixed.catalog.tools.some((tool) => tool.id === 'tickets:closeTicket'))
  assert.equal(problemsOf(fixed.catalog, 'source-kept-last-good').length, 0)

  const deleted = await rebuild({ 'billing.yaml': billing }, fixed.lastGood)
  assert.deepEqual(
    deleted.catalog.tools.map((tool) => tool.id),
    ['billing:listInvoices'],
  )
  assert.equal(deleted.lastGood.has('tickets.yaml'), false)
})

test('a file that only fails while building (a service id another file holds) also keeps its last good version', async () => {
  const first = await rebuild({ 'tickets.yaml': tickets(), 'billing.yaml': billing })
  // An Arazzo file naming an operation the catalog lacks parses fine and fails while building.
  const workflow = (operationId: string) => ({
    arazzo: '1.0.1',
    info: { title: 'Flows', version: '1' },
    sourceDescriptions: [{ name: 'tickets', url: './tickets.yaml', type: 'openapi' }],
    workflows: [{ workflowId: 'look', steps: [{ stepId: 'one', operationId }] }],
  })
  const withFlow = await rebuild(
    { 'tickets.yaml': tickets(), 'billing.yaml': billing, 'flows.arazzo.yaml': workflow('getTicket') },
    first.lastGood,
  )
  assert.equal(withFlow.catalog.workflows.length, 1)
  const brokenFlow = await rebuild(
    { 'tickets.yaml': tickets(), 'billing.yaml': billing, 'flows.arazzo.yaml': workflow('noSuchOperation') },
    withFlow.lastGood,
  )
  assert.deepEqual(brokenFlow.stale, ['flows.arazzo.yaml'])
  assert.equal(brokenFlow.catalog.workflows.length, 1, 'the last good workflow keeps serving')
  assert.equal(brokenFlow.catalog.version, withFlow.catalog.version)
})

test('a file broken from the start has nothing to keep and contributes nothing', async () => {
  const first = await rebuild({ 'tickets.yaml': '{', 'billing.yaml': billing })
  assert.deepEqual(first.stale, [])
  assert.equal(first.catalog.sources.find((source) => source.sourceId === 'tickets.yaml')?.status, 'failed')
  assert.deepEqual(
    first.catalog.tools.map((tool) => tool.id),
    ['billing:listInvoices'],
  )
})

test('the diff names tools added, removed and changed, and adding an operation renames no existing tool', async () => {
  const before = await rebuild({ 'tickets.yaml': tickets(), 'billing.yaml': billing })
  const after = await rebuild({
    'tickets.yaml': tickets({
      '/tickets/{id}/close': { post: { operationId: 'closeTicket', responses: ok } },
      '/tickets/{id}': {
        get: {
          operationId: 'getTicket',
          description: 'Now described',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: ok,
        },
      },
    }),
  })
  assert.deepEqual(diffCatalogs(before.catalog, after.catalog), {
    added: ['tickets:closeTicket'],
    removed: ['billing:listInvoices'],
    changed: ['tickets:getTicket'],
  })
  const wireNames = (catalog: typeof before.catalog) =>
    new Map(catalog.tools.map((tool) => [tool.id, tool.wireName]))
  for (const [id, name] of wireNames(before.catalog))
    if (wireNames(after.catalog).has(id)) assert.equal(wireNames(after.catalog).get(id), name, id)
  assert.deepEqual(diffCatalogs(after.catalog, after.catalog), { added: [], removed: [], changed: [] })
})
