// Issue 42 class 7, parameters named like an API key: specs often declare the key as a header,
// query or cookie parameter beside the security scheme. The gateway sends the service's credential
// under that name, so such an argument was silently replaced (a header) or dropped (a query or
// cookie pair). Now the catalog leaves it out of every tool whose security sends that key, and
// says so at its pointer; a parameter of the same name where no scheme sends it stays an argument
// and arrives. Generated schemes × parameters × security, against a real upstream.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { Secret } from '../../src/config/secrets.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, problemsOf, toolById } from '../helpers/memory-catalog.js'
import { type Received, startUpstream } from '../helpers/upstreams.js'

type Location = 'header' | 'query' | 'cookie'
const LOCATION = fc.constantFrom<Location>('header', 'query', 'cookie')
const NAME = fc.constantFrom('api_key', 'X-Api-Key', 'key', 'token', 'apikey', 'Ocp-Apim-Subscription-Key')
const anyCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''))

const SECRET = 'gateway-secret-7'

const scenario = fc.record({
  scheme: fc.record({ in: LOCATION, name: NAME }),
  parameters: fc.uniqueArray(
    fc.record({ in: LOCATION, name: NAME.chain(anyCase), value: fc.stringMatching(/^[a-z0-9]{1,10}$/) }),
    { minLength: 1, maxLength: 4, selector: (p) => `${p.in}:${p.name.toLowerCase()}` },
  ),
  secured: fc.boolean(),
})

function sent(received: Received, where: Location, name: string): string[] {
  if (where === 'header') {
    const value = received.headers[name.toLowerCase()]
    return value === undefined ? [] : [String(value)]
  }
  if (where === 'query') return new URLSearchParams(received.target.split('?')[1] ?? '').getAll(name)
  return String(received.headers.cookie ?? '')
    .split('; ')
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => decodeURIComponent(pair.slice(name.length + 1)))
}

describe('parameters named like an API key (issue 42 class 7)', () => {
  test('property: a parameter the security sends is no argument and is reported; any other arrives as given; the key arrives once', async (t) => {
    const upstream = await startUpstream(t)
    let left = 0
    let kept = 0
    await fc.assert(
      fc.asyncProperty(scenario, async ({ scheme, parameters, secured }) => {
        const catalog = await catalogOf({
          's.json': openapi(
            {
              '/k': {
                get: {
                  operationId: 'k',
                  security: secured ? [{ key: [] }] : [],
                  parameters: parameters.map((p) => ({ name: p.name, in: p.in, schema: { type: 'string' } })),
                  responses: ok,
                },
              },
            },
            {
              components: { securitySchemes: { key: { type: 'apiKey', in: scheme.in, name: scheme.name } } },
            },
          ),
        })
        const tool = toolById(catalog, 's:k')
        const reported = problemsOf(catalog, 'parameter-credential').map((p) => p.pointer)
        const args: Record<string, string> = {}
        const carried: typeof parameters = []
        for (const [index, p] of parameters.entries()) {
          const key = Object.entries(tool.binding.arguments).find(
            ([, target]) => target.in === p.in && 'name' in target && target.name === p.name,
          )?.[0]
          const pointer = `/paths/~1k/get/parameters/${index}`
          const taken = secured && p.in === scheme.in && p.name.toLowerCase() === scheme.name.toLowerCase()
          if (taken) {
            left++
            assert.equal(key, undefined, `${p.in} ${p.name} is no argument`)
            assert.ok(reported.includes(pointer), `${p.in} ${p.name} reported at ${pointer}: ${reported}`)
          } else {
            kept++
            assert.ok(key !== undefined, `${p.in} ${p.name} is an argument`)
            assert.ok(!reported.includes(pointer))
            args[key] = p.value
            carried.push(p)
          }
        }
        const before = upstream.received.length
        const outcome = await executorFor(t, catalog, {
          services: { s: { upstream: upstream.url } },
          credentials: { s: { key: { kind: 'secret', secret: new Secret(SECRET) } } },
        }).call(tool.id, args)
        assert.equal(outcome.status, 200, JSON.stringify(outcome))
        assert.equal(upstream.received.length, before + 1)
        const received = upstream.received.at(-1)!
        // Without security, a parameter of the key's name is the caller's and arrives too.
        for (const p of carried)
          assert.deepEqual(sent(received, p.in, p.name), [p.value], `${p.in} ${p.name}`)
        if (secured) assert.deepEqual(sent(received, scheme.in, scheme.name), [SECRET])
      }),
      { numRuns: 150 },
    )
    assert.ok(left > 0 && kept > 0, `${left} left out, ${kept} kept`)
    t.diagnostic(`${left} parameters left out, ${kept} kept`)
  })
})
