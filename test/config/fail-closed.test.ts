// Issue 41 class 8: no configuration fails open. An unknown NODE_ENV (or TRUST_PROXY) spelling is
// refused at start, naming the variable; a service's credentials never follow a path's or
// operation's servers to another origin unless the operator allows that origin.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { allowedOrigins } from '../../src/catalog/server-origin.js'
import { ConfigError, type GatewayConfig, loadConfig } from '../../src/config/load-config.js'
import { Secret } from '../../src/config/secrets.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi, problemsOf } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

const noFiles = async () => {
  throw new Error('no file is read')
}

/** Spellings near a known value: case flipped per letter, padded, cut, or anything at all. */
function spellingsOf(...known: string[]) {
  const word = fc.constantFrom(...known)
  return fc.oneof(
    fc
      .tuple(word, fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }))
      .map(([w, flips]) => [...w].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join('')),
    fc.tuple(word, fc.constantFrom(' ', '\t', '.', '-', '_', '1', 's')).map(([w, pad]) => `${w}${pad}`),
    fc.tuple(word, fc.constantFrom(' ', '"', "'")).map(([w, pad]) => `${pad}${w}`),
    word.chain((w) => fc.integer({ min: 1, max: w.length - 1 }).map((n) => w.slice(0, n))),
    fc.constantFrom('prod', 'Prod', 'PRODUCTION', 'Production', 'live', 'staging', 'prd', 'yes', 'True', '1'),
    fc.string({ minLength: 1, maxLength: 20 }),
  )
}

describe('modes are exact or refused (issue 41 class 8)', () => {
  test('NODE_ENV: production, development and test are served; any other spelling stops the start naming NODE_ENV', async () => {
    await fc.assert(
      fc.asyncProperty(spellingsOf('production', 'development', 'test'), async (value) => {
        const loaded: GatewayConfig | unknown = await loadConfig({ NODE_ENV: value }, noFiles).catch(
          (err: unknown) => err,
        )
        if (['production', 'development', 'test'].includes(value)) {
          assert.ok(!(loaded instanceof Error), `${JSON.stringify(value)}: ${loaded}`)
          const config = loaded as GatewayConfig
          assert.equal(config.production, value === 'production')
          // No clients: production is closed, never open.
          assert.equal(config.access.mode, value === 'production' ? 'closed' : 'open')
          return
        }
        assert.ok(loaded instanceof ConfigError, `NODE_ENV=${JSON.stringify(value)} was served`)
        assert.match(
          loaded.message,
          /environment variable NODE_ENV: must be one of production, development, test/,
        )
      }),
      { numRuns: 300 },
    )
  })

  test('TRUST_PROXY: true, false, addresses and CIDRs are served; any other spelling stops the start naming TRUST_PROXY', async () => {
    await fc.assert(
      fc.asyncProperty(spellingsOf('true', 'false'), async (value) => {
        const loaded = await loadConfig({ TRUST_PROXY: value }, noFiles).then(
          (config) => config,
          (err: unknown) => err,
        )
        if (value.trim() === '') return // unset, as an empty variable is everywhere
        if (value === 'true' || value === 'false') {
          assert.ok(!(loaded instanceof Error), `${JSON.stringify(value)}: ${loaded}`)
          return
        }
        assert.ok(loaded instanceof ConfigError, `TRUST_PROXY=${JSON.stringify(value)} was served`)
        assert.match(loaded.message, /environment variable TRUST_PROXY: .* must be true, false, or/)
      }),
      { numRuns: 200 },
    )
    for (const served of ['127.0.0.1', '10.0.0.0/8, ::1', 'fd00::/8', 'loopback,10.0.0.0/255.0.0.0']) {
      const config = await loadConfig({ TRUST_PROXY: served }, noFiles)
      assert.ok(Array.isArray(config.trustProxy), served)
    }
  })
})

/** A host and spellings of its origin that the URL standard makes one origin. */
const HOSTS = [
  { scheme: 'https', host: 'api.example.com', spellings: ['API.Example.COM', 'api.EXAMPLE.com'] },
  { scheme: 'https', host: 'bücher.example', spellings: ['xn--bcher-kva.example', 'BÜCHER.example'] },
  { scheme: 'http', host: '[::1]', spellings: ['[0:0:0:0:0:0:0:1]', '[::0001]'] },
  { scheme: 'http', host: '192.168.0.10', spellings: ['192.168.000.10', '0xc0.168.0.10'] },
] as const

interface Variant {
  readonly url: string
  readonly same: boolean
}

/** The service's server, and a path server spelled as the same origin or as another one. */
const variants = fc
  .tuple(
    fc.constantFrom(...HOSTS),
    fc.constantFrom('', ':8443'),
    fc.constantFrom('', '/v2', '/v1/', '/other/base'),
    fc.boolean(),
    fc.nat(),
  )
  .chain(([base, port, path, same, pick]) => {
    const spelling = [base.host, ...base.spellings][pick % (base.spellings.length + 1)]!
    const defaultPort = base.scheme === 'https' ? ':443' : ':80'
    const service = `${base.scheme}://${base.host}${port}`
    const sameSpellings = [
      `${base.scheme.toUpperCase()}://${spelling}${port}${path}`,
      `${base.scheme}://user:pw@${spelling}${port}${path}`,
      `${base.scheme}://${spelling}${port || defaultPort}${path}`,
    ]
    const bare = base.host.replace(/^\[|\]$/g, '')
    const otherSpellings = [
      `${base.scheme === 'https' ? 'http' : 'https'}://${spelling}${port}${path}`,
      `${base.scheme}://${spelling}${port ? '' : ':8080'}${path}`,
      `${base.scheme}://evil.example.net${port}${path}`,
      `${base.scheme}://${base.host}@evil.example.net${port}${path}`,
      ...(base.host.startsWith('[') || /^\d/.test(base.host)
        ? []
        : [
            `${base.scheme}://${bare}.${port}${path}`,
            `${base.scheme}://${bare}.evil.net${port}${path}`,
            `${base.scheme}://x.${bare}${port}${path}`,
          ]),
    ]
    const list = same ? sameSpellings : otherSpellings
    return fc
      .constantFrom(...list)
      .map((url): { service: string; variant: Variant } => ({ service, variant: { url, same } }))
  })

const SECRET = 'svc-key-9Xq2Lm7p'

function spec(service: string, pathServer: string, level: 'path' | 'operation') {
  const operation = {
    operationId: 'read',
    security: [{ key: [] }],
    responses: ok,
    ...(level === 'operation' ? { servers: [{ url: pathServer }] } : {}),
  }
  return openapi(
    { '/items': { get: operation, ...(level === 'path' ? { servers: [{ url: pathServer }] } : {}) } },
    {
      servers: [{ url: service }],
      components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    },
  )
}

describe("a service's credentials stay at its origin (issue 41 class 8)", () => {
  test('same origin however spelled gets them; another origin never does, unless allowOrigins names it', async (t) => {
    const credentials = { svc: { key: { kind: 'secret' as const, secret: new Secret(SECRET) } } }
    await fc.assert(
      fc.asyncProperty(
        variants,
        fc.constantFrom('path', 'operation') as fc.Arbitrary<'path' | 'operation'>,
        fc.boolean(),
        async ({ service, variant }, level, allow) => {
          // allowOrigins as an operator writes it: the path server's origin, in its own spelling.
          const allowed = allow ? [new URL(variant.url).origin.toUpperCase().replace('HTTP', 'http')] : []
          const options = { services: { svc: { source: 'svc.yaml', allowOrigins: allowed } } }
          const catalog = await catalogOf({ 'svc.yaml': spec(service, variant.url, level) }, options)
          const { dryRun } = executorFor(t, catalog, {
            services: { svc: { allowOrigins: allowedOrigins(allowed) } },
            credentials,
          })
          const outcome = await dryRun('svc:read', {})
          assert.equal(outcome.kind, 'dry-run', JSON.stringify(outcome))
          const request = (outcome as Extract<typeof outcome, { kind: 'dry-run' }>).request
          const carried = 'x-api-key' in request.headers
          const foreign = problemsOf(catalog, 'server-origin-foreign')
          const label = `${service} → ${variant.url} (${level}, allow ${allow})`
          assert.equal(
            carried,
            variant.same || allow,
            `${label}: credentials ${carried ? 'sent' : 'withheld'}`,
          )
          assert.equal(foreign.length, variant.same || allow ? 0 : 1, `${label}: ${JSON.stringify(foreign)}`)
          if (foreign[0]) {
            assert.equal(foreign[0].severity, 'warning')
            assert.equal(
              foreign[0].pointer,
              level === 'path' ? '/paths/~1items/servers' : '/paths/~1items/get/servers',
            )
            assert.match(foreign[0].message, /services\.svc\.allowOrigins/)
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  test('a real call to a path server on another origin carries none of them; a configured upstream keeps them', async (t) => {
    const own = await startUpstream(t)
    const other = await startUpstream(t)
    const credentials = { svc: { key: { kind: 'secret' as const, secret: new Secret(SECRET) } } }
    const catalog = await catalogOf({ 'svc.yaml': spec(own.url, other.url, 'path') })
    const { call } = executorFor(t, catalog, { services: { svc: {} }, credentials })
    assert.equal((await call('svc:read', {})).kind, 'answer')
    assert.equal(other.received.length, 1)
    assert.equal(other.received[0]!.headers['x-api-key'], undefined)
    // services.<id>.upstream replaces every server: the call goes there, with its credentials.
    const pinned = executorFor(t, catalog, { services: { svc: { upstream: own.url } }, credentials })
    assert.equal((await pinned.call('svc:read', {})).kind, 'answer')
    assert.equal(own.received[0]!.headers['x-api-key'], SECRET)
  })
})
