// The tool search index (issue 15), pure: words, stems, what is indexed, what filters, and
// catalogs of one tool or none.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildSearchIndex, buildSearchIndexAsync, MAX_QUERY_TERMS } from '../../src/catalog/index.js'
import { normalizeTerm, splitWords, stem } from '../../src/catalog/search-index.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'

describe('search words', () => {
  test('names split at snake_case, camelCase and acronyms', () => {
    const cases: [string, string[]][] = [
      ['listCoreV1NamespacedPod', ['list', 'Core', 'V1', 'Namespaced', 'Pod']],
      ['tickets_get_ticket', ['tickets', 'get', 'ticket']],
      ['PostChargesChargeRefunds', ['Post', 'Charges', 'Charge', 'Refunds']],
      ['ListSIPDomains', ['List', 'SIP', 'Domains']],
      ['/v1/payment_intents/{intent}', ['v1', 'payment', 'intents', 'intent']],
      ['*** AND () -x', ['AND', 'x']],
      ['', []],
    ]
    for (const [text, words] of cases) assert.deepEqual(splitWords(text), words, text)
  })

  test('stems fold what users and specs inflect differently; stop words are dropped', () => {
    const same: string[][] = [
      ['refund', 'refunds', 'refunded', 'refunding'],
      ['charge', 'charges', 'charged'],
      ['policy', 'policies'],
      ['delete', 'deleted', 'remove', 'removes'],
    ]
    for (const group of same) {
      const stems = new Set(group.map((word) => normalizeTerm(word)))
      assert.equal(stems.size, 1, `${group.join(', ')}: ${[...stems].join(', ')}`)
    }
    assert.equal(normalizeTerm('the'), null)
    assert.equal(normalizeTerm('x'.repeat(65)), null, 'no term longer than 64 characters')
    assert.equal(stem('v1beta1'), 'v1beta1', 'versions are not stemmed')
  })
})

describe('the index', () => {
  const spec = openapi({
    '/invoices': {
      get: { operationId: 'listInvoices', summary: 'List invoices', responses: ok },
      post: { operationId: 'createInvoice', summary: 'Create an invoice', responses: ok },
    },
    '/invoices/{id}/pay': {
      post: {
        operationId: 'payInvoice',
        summary: 'Pay an invoice',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: ok,
      },
    },
    '/secret': { get: { operationId: 'secretThing', 'x-cli-ignore': true, responses: ok } },
  })

  test('ranks by the words and the action asked for; filters; limits', async () => {
    const catalog = await catalogOf({ 'billing.yaml': spec })
    const index = buildSearchIndex(catalog)
    const names = (query: string, options = { limit: 5 }) =>
      index.search(query, options).map((match) => match.tool.operationId)
    assert.equal(names('pay an invoice')[0], 'payInvoice')
    assert.equal(names('show me all invoices')[0], 'listInvoices')
    assert.equal(names('make a new invoice')[0], 'createInvoice')
    assert.deepEqual(names('invoice', { limit: 1 }), [names('invoice')[0]])
    assert.deepEqual(names('invoice', { limit: 0 }), [])
    assert.deepEqual(names(''), [])
    assert.deepEqual(names('   \t '), [])
    assert.deepEqual(names('*** () "" -'), [])
    const onlyPay = index.search('invoice', { limit: 5, accept: (tool) => tool.operationId === 'payInvoice' })
    assert.deepEqual(
      onlyPay.map((match) => match.tool.operationId),
      ['payInvoice'],
    )
    // A filter that rejects the best match still fills the limit, in rank order, with the same scores.
    const ranked = index.search('invoice', { limit: 5 })
    assert.ok(ranked.length >= 3)
    const notBest = index.search('invoice', { limit: 2, accept: (tool) => tool !== ranked[0]!.tool })
    assert.deepEqual(notBest, ranked.slice(1, 3))
    const scores = index.search('invoice', { limit: 5 }).map((match) => match.score)
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
      'best first',
    )
  })

  test('a 10 KB query costs what its first words cost and finds the same', async () => {
    const index = buildSearchIndex(await catalogOf({ 'billing.yaml': spec }))
    const long = `pay invoice ${'lorem ipsum dolor '.repeat(600)}`
    assert.ok(long.length > 10_000)
    assert.equal(index.search(long, { limit: 1 })[0]?.tool.operationId, 'payInvoice')
    assert.ok(MAX_QUERY_TERMS >= 8)
  })

  test('ignored tools are not indexed; the async build finds what the sync one finds', async () => {
    const catalog = await catalogOf({ 'billing.yaml': spec })
    const index = buildSearchIndex(catalog)
    const ignored = catalog.tools.filter((tool) => tool.ignored).length
    assert.equal(ignored, 1)
    assert.deepEqual(index.search('secret thing', { limit: 5 }), [])
    assert.equal(index.size, catalog.tools.length - ignored)
    const chunked = await buildSearchIndexAsync(catalog)
    for (const query of ['pay an invoice', 'list invoices', 'secret thing'])
      assert.deepEqual(chunked.search(query, { limit: 5 }), index.search(query, { limit: 5 }), query)
  })

  test('a catalog of one tool or none', async () => {
    const one = buildSearchIndex(
      await catalogOf({ 'one.yaml': openapi({ '/ping': { get: { operationId: 'ping', responses: ok } } }) }),
    )
    assert.equal(one.size, 1)
    assert.deepEqual(
      one.search('ping', { limit: 5 }).map((match) => match.tool.operationId),
      ['ping'],
    )
    assert.deepEqual(one.search('invoice', { limit: 5 }), [])
    const none = buildSearchIndex(await catalogOf({}))
    assert.equal(none.size, 0)
    assert.deepEqual(none.search('anything', { limit: 5 }), [])
    assert.deepEqual((await buildSearchIndexAsync(await catalogOf({}))).search('anything', { limit: 5 }), [])
  })
})
