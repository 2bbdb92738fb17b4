// Issue 43: the signals beyond the words. An identifier in the query whose prefix a tool's
// arguments document (`stake1…`, `se-…`) lifts that tool; a service the query names lifts its
// tools; the lexicon relates the words users say to the ones APIs use.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { buildSearchIndex } from '../../src/catalog/index.js'
import { idPrefix, relatedWords } from '../../src/catalog/search-signals.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'

const get = (operationId: string, parameter: Record<string, unknown>) => ({
  get: {
    operationId,
    summary: 'Show the history',
    parameters: [{ in: 'path', required: true, ...parameter }],
    responses: ok,
  },
})

describe('search signals (issue 43)', () => {
  test('identifier prefixes: Stripe, ShipEngine and Bech32 styles; words are no identifiers', () => {
    assert.equal(idPrefix('cus_Nf3kd2'), 'cus_')
    assert.equal(idPrefix('se-28529731'), 'se-')
    assert.equal(idPrefix('stake1u9ylzsgxaa6xctf4juup682ar3juj85n8tx3hthnljg47zctvm3rc'), 'stake1')
    for (const word of ['my-site', 'all_items', 'hello', 'x', '1234', ''])
      assert.equal(idPrefix(word), undefined, word)
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        (text) => idPrefix(text) === undefined || /^[a-z0-9]+[_\-1]$/.test(idPrefix(text)!),
      ),
    )
  })

  test('a query holding an identifier of a documented kind lifts the tool that takes it', async () => {
    const catalog = await catalogOf({
      'chain.yaml': openapi({
        '/accounts/{stake_address}/history': get('accountHistory', {
          name: 'stake_address',
          schema: { type: 'string' },
          example: 'stake1u9ylzsgxaa6xctf4juup682ar3juj85n8tx3hthnljg47zctvm3rc',
        }),
        '/pools/{pool_id}/history': get('poolHistory', {
          name: 'pool_id',
          schema: { type: 'string' },
          example: 'pool1pu5jlj4q9w9jlxeu370a3c9myx47md5j5m2str0naunn2q3lkdy',
        }),
      }),
    })
    const on = buildSearchIndex(catalog)
    const off = buildSearchIndex(catalog, { values: false })
    for (const [query, expected] of [
      ['history of stake1u8a9qstrmj4rvc3gq7gh5zsl4z3f2qzyqqc2hr0sz3x7c9qjzq3gq', 'chain:accountHistory'],
      ['history of pool1z5uqdk7dzdxaae5633fqfcu2eqzy3a3rgtuvy087fdld7yws0xt', 'chain:poolHistory'],
    ] as const) {
      assert.equal(on.search(query, { limit: 2 })[0]?.tool.id, expected, query)
      // Without the signal the two tools tie on the words alone.
      const scores = off.search(query, { limit: 2 }).map((match) => match.score)
      assert.equal(scores[0], scores[1])
    }
  })

  test('a service its servers name lifts its tools; a name two services share lifts neither', async () => {
    const spec = (title: string, host: string) =>
      openapi(
        { '/invoices': { get: { operationId: 'listInvoices', responses: ok } } },
        { info: { title, version: '1' }, servers: [{ url: `https://api.${host}/v1` }] },
      )
    const catalog = await catalogOf({
      'a.yaml': spec('Billing', 'acmepay.io'),
      'z.yaml': spec('Billing', 'zenbill.io'),
    })
    const on = buildSearchIndex(catalog)
    const off = buildSearchIndex(catalog, { services: false })
    assert.equal(on.search('list invoices on zenbill', { limit: 2 })[0]?.tool.id, 'z:listInvoices')
    assert.equal(on.search('list invoices on acmepay', { limit: 2 })[0]?.tool.id, 'a:listInvoices')
    const tie = (scores: number[]) => assert.equal(scores[0], scores[1])
    tie(off.search('list invoices on zenbill', { limit: 2 }).map((match) => match.score))
    // "billing" is in both titles: it names neither.
    tie(on.search('list billing invoices', { limit: 2 }).map((match) => match.score))
  })

  test('the lexicon relates phrases and words, never the query word itself', () => {
    assert.ok(relatedWords(['get', 'rid', 'of', 'it']).includes('delete'))
    assert.ok(relatedWords(['trash', 'the', 'file']).includes('delete'))
    assert.ok(!relatedWords(['delete']).includes('delete'))
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 40 }), (words) =>
        Array.isArray(relatedWords(words)),
      ),
    )
  })
})

describe('search confidence (issue 43)', () => {
  test('property: the share of the query words a tool matched, 0 to 1; all of them for its own words, none past its words', async () => {
    const catalog = await catalogOf({
      'tickets.yaml': openapi({
        '/tickets/{id}': {
          get: {
            operationId: 'getTicket',
            summary: 'Get a ticket',
            parameters: [{ in: 'path', name: 'id', required: true, schema: { type: 'string' } }],
            responses: ok,
          },
        },
      }),
    })
    const index = buildSearchIndex(catalog)
    assert.equal(index.search('ticket', { limit: 1 })[0]?.confidence, 1)
    const filler = fc.array(fc.constantFrom('sourdough', 'glacier', 'violin', 'pumpkin', 'orbit'), {
      minLength: 1,
      maxLength: 6,
    })
    fc.assert(
      fc.property(filler, (words) => {
        const [match] = index.search(`ticket ${words.join(' ')}`, { limit: 1 })
        const distinct = new Set(words).size
        assert.ok(match && match.confidence > 0 && match.confidence <= 1)
        assert.equal(match.confidence, Math.round(100 / (distinct + 1)) / 100)
      }),
    )
  })
})
