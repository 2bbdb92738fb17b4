// Issue 45: each client's own upstream credentials replace the gateway's for its calls only.
import assert from 'node:assert/strict'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import fc from 'fast-check'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { configFile } from '../helpers/app.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

const SERVICES = 3
const CLIENTS = 4

/** Service `s<i>`: one GET whose API key goes in X-Api-Key, served under `<upstream>/s<i>`. */
function keyedSpec(upstreamUrl: string, index: number): string {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: `Service ${index}`, version: '1.0.0' },
    servers: [{ url: `${upstreamUrl}/s${index}` }],
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
    security: [{ key: [] }],
    paths: { '/thing': { get: { operationId: 'get', responses: { '200': { description: 'ok' } } } } },
  })
}

interface Setup {
  /** Per service: the gateway's own key is configured. */
  readonly gatewayKey: readonly boolean[]
  readonly require: readonly boolean[]
  /** [client][service]: the client has its own key for the service. */
  readonly own: readonly (readonly boolean[])[]
  readonly calls: readonly { readonly client: number; readonly service: number }[]
}

const setups = fc.record({
  gatewayKey: fc.array(fc.boolean(), { minLength: SERVICES, maxLength: SERVICES }),
  require: fc.array(fc.boolean(), { minLength: SERVICES, maxLength: SERVICES }),
  own: fc.array(fc.array(fc.boolean(), { minLength: SERVICES, maxLength: SERVICES }), {
    minLength: CLIENTS,
    maxLength: CLIENTS,
  }),
  calls: fc.array(
    fc.record({ client: fc.nat({ max: CLIENTS - 1 }), service: fc.nat({ max: SERVICES - 1 }) }),
    { minLength: 1, maxLength: 10 },
  ),
})

function configYaml(setup: Setup): string {
  const lines = ['services:']
  for (let s = 0; s < SERVICES; s++) {
    lines.push(`  s${s}:`)
    if (setup.require[s]) lines.push('    requireClientCredentials: true')
    if (setup.gatewayKey[s]) lines.push(`    credentials: { key: { value: gateway-s${s} } }`)
    else lines.push('    timeoutMs: 5000')
  }
  lines.push('clients:')
  for (let c = 0; c < CLIENTS; c++) {
    lines.push(`  - id: c${c}`, `    token: { value: token-of-client-number-c${c} }`)
    const owned = setup.own[c]!.flatMap((has, s) =>
      has ? [`s${s}: { key: { value: own-c${c}-s${s} } }`] : [],
    )
    if (owned.length > 0) lines.push(`    credentials: { ${owned.join(', ')} }`)
  }
  return `${lines.join('\n')}\n`
}

test("property: an upstream never receives a credential of another client, and a required one is never the gateway's", {
  timeout: HANG_BOUND_MS * 4,
}, async (t) => {
  const upstream = await startUpstream(t)
  const specs = await tempDir(t)
  for (let s = 0; s < SERVICES; s++) await writeFile(join(specs, `s${s}.json`), keyedSpec(upstream.url, s))
  await fc.assert(
    fc.asyncProperty(setups, async (setup) => {
      const config = await loadConfig(
        {
          SPECS_DIR: specs,
          LOG_LEVEL: 'silent',
          SPECS_POLL_INTERVAL: '0',
          TOOLGATE_CONFIG: await configFile(configYaml(setup)),
        },
        (path) => readFile(path, 'utf8'),
      )
      const app = await buildApp({ config })
      try {
        for (const { client, service } of setup.calls) {
          const before = upstream.received.length
          const answer = await app.inject({
            method: 'POST',
            url: `/tools/${encodeURIComponent(`s${service}:get`)}`,
            headers: { authorization: `Bearer token-of-client-number-c${client}` },
            payload: {},
          })
          const sent = upstream.received.slice(before).map((received) => received.headers['x-api-key'])
          for (const key of sent)
            if (typeof key === 'string' && key.startsWith('own-'))
              assert.ok(key.startsWith(`own-c${client}-`), `c${client}'s call carried ${key}`)
          if (setup.own[client]![service]) {
            assert.equal(answer.statusCode, 200, answer.body)
            assert.deepEqual(sent, [`own-c${client}-s${service}`])
          } else if (setup.require[service]) {
            assert.equal(answer.statusCode, 403, answer.body)
            assert.equal(answer.json().code, 'TG_ERR_UPSTREAM_CLIENT_CREDENTIALS_REQUIRED')
            assert.deepEqual(sent, [])
          } else {
            assert.equal(answer.statusCode, 200, answer.body)
            assert.deepEqual(sent, [setup.gatewayKey[service] ? `gateway-s${service}` : undefined])
          }
        }
      } finally {
        await app.close()
      }
    }),
    { numRuns: 15 },
  )
})

test("a dry run names each credential's source and owner, never its value", async (t) => {
  const upstream = await startUpstream(t)
  const specs = await tempDir(t)
  await writeFile(join(specs, 's0.json'), keyedSpec(upstream.url, 0))
  const config = await loadConfig(
    {
      SPECS_DIR: specs,
      LOG_LEVEL: 'silent',
      SPECS_POLL_INTERVAL: '0',
      TOOLGATE_CONFIG: await configFile(
        [
          'services:',
          '  s0: { credentials: { key: { value: gateway-s0 } } }',
          'clients:',
          '  - { id: c0, token: { value: token-of-client-number-c0 }, credentials: { s0: { key: { value: own-c0-s0 } } } }',
          '  - { id: c1, token: { value: token-of-client-number-c1 }, operator: true }',
        ].join('\n'),
      ),
    },
    (path) => readFile(path, 'utf8'),
  )
  const app = await buildApp({ config })
  t.after(() => app.close())
  const dryRun = (client: string) =>
    app.inject({
      method: 'POST',
      url: `/tools/${encodeURIComponent('s0:get')}?dryRun=true`,
      headers: { authorization: `Bearer token-of-client-number-${client}` },
      payload: {},
    })
  // /catalog and the explorer's tool page name every source and owner, never a value.
  const operator = { authorization: 'Bearer token-of-client-number-c1' }
  const catalog = await app.inject({ method: 'GET', url: '/catalog', headers: operator })
  assert.equal(catalog.statusCode, 200, catalog.body)
  const expected = [
    { scheme: 'key', source: 'gateway', owner: 'gateway' },
    { scheme: 'key', source: 'client', owner: 'c0' },
  ]
  assert.deepEqual(
    catalog.json().services.find((service: { id: string }) => service.id === 's0').credentialSources,
    expected,
  )
  const page = await app.inject({
    method: 'GET',
    url: `/explorer/api/tools/${encodeURIComponent('s0:get')}`,
    headers: operator,
  })
  assert.equal(page.statusCode, 200, page.body)
  assert.deepEqual(page.json().credentialSources, expected)
  assert.doesNotMatch(catalog.body + page.body, /own-c0-s0|gateway-s0/)
  const own = await dryRun('c0')
  assert.deepEqual(own.json().credentials, [{ scheme: 'key', source: 'client', owner: 'c0' }])
  assert.equal(own.json().request.headers['x-api-key'], '[redacted]')
  const gateway = await dryRun('c1')
  assert.deepEqual(gateway.json().credentials, [{ scheme: 'key', source: 'gateway', owner: 'gateway' }])
  assert.doesNotMatch(own.body + gateway.body, /own-c0-s0|gateway-s0/)
})

test('a client credential for a scheme the spec lacks stops the start, named by its path', async (t) => {
  const specs = await tempDir(t)
  await writeFile(join(specs, 's0.json'), keyedSpec('http://127.0.0.1:9', 0))
  const config = await loadConfig(
    {
      SPECS_DIR: specs,
      LOG_LEVEL: 'silent',
      SPECS_POLL_INTERVAL: '0',
      TOOLGATE_CONFIG: await configFile(
        'clients:\n  - { id: c0, token: { value: token-of-client-number-c0 }, credentials: { s0: { bearer: { value: x } } } }\n',
      ),
    },
    (path) => readFile(path, 'utf8'),
  )
  await assert.rejects(
    buildApp({ config }),
    /clients \(c0\)\.credentials\.s0\.bearer: the spec defines no security scheme bearer \(it defines key\)/,
  )
})
