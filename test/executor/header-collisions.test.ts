// Issue 42 class 7, header collisions: on 119 unseen public specs, 30 calls lost a header argument
// the spec declares (`User-Agent`, `X-Request-Id`) because the gateway's own header of that name
// won. A header argument the caller gives reaches the upstream; a header no argument can carry
// (framing, hop-by-hop, Cookie, OpenAPI's ignored three) is no argument at all, and the catalog
// says so at the parameter's pointer. Real upstream, generated names in any case × values.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { UNCARRIED_HEADERS } from '../../src/catalog/gateway-headers.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

/** Names the gateway writes itself, or that HTTP reserves, and ordinary ones real specs declare. */
const NAMES = [
  'User-Agent',
  'X-Request-Id',
  'Accept',
  'Content-Type',
  'Authorization',
  'Host',
  'Content-Length',
  'Transfer-Encoding',
  'Connection',
  'Keep-Alive',
  'Upgrade',
  'TE',
  'Trailer',
  'Expect',
  'Proxy-Authorization',
  'Proxy-Connection',
  'Cookie',
  'traceparent',
  'Accept-Language',
  'X-GitHub-Api-Version',
  'Idempotency-Key',
]

/** A name in any mix of cases: HTTP compares header names without case. */
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''))

const headerName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NAMES).chain(anyCase) },
  { weight: 1, arbitrary: fc.stringMatching(/^X-[A-Za-z0-9-]{1,12}$/) },
)
const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,30}[\x21-\x7e])?$/)

const declared = fc.uniqueArray(
  fc.record({ name: headerName, value: headerValue, required: fc.boolean(), given: fc.boolean() }),
  { minLength: 1, maxLength: 6, selector: (h) => h.name.toLowerCase() },
)

describe('header collisions: a declared header argument reaches the upstream, or is no argument (issue 42 class 7)', () => {
  test('property: every carried header argument arrives with its value; every uncarried one is left out and reported', async (t) => {
    const upstream = await startUpstream(t)
    let carried = 0
    let uncarried = 0
    await fc.assert(
      fc.asyncProperty(declared, fc.stringMatching(/^[A-Za-z0-9]{1,12}$/), async (headers, requestId) => {
        const parameters = headers.map((h) => ({
          name: h.name,
          in: 'header',
          required: h.required,
          schema: { type: 'string' },
        }))
        const catalog = await catalogOf({
          's.json': openapi({ '/h': { get: { operationId: 'h', parameters, responses: ok } } }),
        })
        const tool = toolById(catalog, 's:h')
        const reported = problemsOf(catalog, 'parameter-header-uncarried').map((p) => p.pointer)
        const args: Record<string, string> = {}
        for (const [index, h] of headers.entries()) {
          const key = Object.entries(tool.binding.arguments).find(
            ([, target]) => target.in === 'header' && 'name' in target && target.name === h.name,
          )?.[0]
          const pointer = `/paths/~1h/get/parameters/${index}`
          if (UNCARRIED_HEADERS.has(h.name.toLowerCase())) {
            uncarried++
            assert.equal(key, undefined, `${h.name} is no argument`)
            assert.ok(reported.includes(pointer), `${h.name} reported at ${pointer}: ${reported}`)
          } else {
            carried++
            assert.ok(key !== undefined, `${h.name} is an argument`)
            assert.ok(!reported.includes(pointer))
            if (h.given || h.required) args[key] = h.value
          }
        }
        const before = upstream.received.length
        const outcome = await executorFor(t, catalog, { services: { s: { upstream: upstream.url } } }).call(
          tool.id,
          args,
          { requestId },
        )
        assert.equal(outcome.status, 200, JSON.stringify(outcome))
        assert.equal(upstream.received.length, before + 1)
        const got = upstream.received.at(-1)!.headers
        for (const h of headers) {
          const name = h.name.toLowerCase()
          if (UNCARRIED_HEADERS.has(name)) continue
          const given = h.given || h.required
          if (given) assert.equal(got[name], h.value, `${h.name} arrived as given`)
          else if (name === 'user-agent') assert.equal(got[name], 'toolgate-test')
          else if (name === 'x-request-id') assert.equal(got[name], requestId)
          else assert.equal(got[name], undefined)
        }
        const names = new Set(headers.map((h) => h.name.toLowerCase()))
        if (!names.has('user-agent')) assert.equal(got['user-agent'], 'toolgate-test')
        if (!names.has('x-request-id')) assert.equal(got['x-request-id'], requestId)
      }),
      { numRuns: 150 },
    )
    t.diagnostic(`${carried} carried and ${uncarried} uncarried header parameters checked`)
  })

  test('GitHub-style User-Agent and a caller X-Request-Id win over the gateway defaults, in a dry run too', async (t) => {
    const upstream = await startUpstream(t)
    const catalog = await catalogOf({
      's.json': openapi({
        '/repos': {
          parameters: [{ name: 'user-agent', in: 'header', schema: { type: 'string' } }],
          get: {
            operationId: 'repos',
            parameters: [
              { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string' } },
              { name: 'X-Request-ID', in: 'header', schema: { type: 'string' } },
              { name: 'Host', in: 'header', schema: { type: 'string' } },
            ],
            responses: ok,
          },
        },
      }),
    })
    const tool = toolById(catalog, 's:repos')
    assert.deepEqual(Object.keys(tool.inputSchema.properties as object).sort(), [
      'User-Agent',
      'X-Request-ID',
    ])
    assert.deepEqual(tool.inputSchema.required, ['User-Agent'])
    const { call, dryRun } = executorFor(t, catalog, { services: { s: { upstream: upstream.url } } })
    const args = { 'User-Agent': 'octo-app/1.2', 'X-Request-ID': 'caller-7' }
    const preview = await dryRun(tool.id, args, { requestId: 'gw-1' })
    assert.equal(preview.kind, 'dry-run', JSON.stringify(preview))
    assert.equal(preview.request.headers['user-agent'], 'octo-app/1.2')
    assert.equal(preview.request.headers['x-request-id'], 'caller-7')
    assert.equal((await call(tool.id, args, { requestId: 'gw-1' })).status, 200)
    assert.equal(upstream.received[0]!.headers['user-agent'], 'octo-app/1.2')
    assert.equal(upstream.received[0]!.headers['x-request-id'], 'caller-7')
    assert.equal(upstream.received[0]!.headers.host, new URL(upstream.url).host)
  })
})
