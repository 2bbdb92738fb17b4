// Issue 41 class 7: the OAuth resource metadata and WWW-Authenticate name publicUrl, never a URL
// built from the Host, X-Forwarded-Host or Forwarded a caller sends.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { ConfigError, loadConfig } from '../../src/config/load-config.js'
import { configFile, exampleApp } from '../helpers/app.js'
import { type AuthServer, startAuthServer } from '../helpers/auth-server.js'
import { fromRoot } from '../helpers/paths.js'

const GATEWAY = 'https://gateway.test'
const WELL_KNOWN = '/.well-known/oauth-protected-resource'

/** The configurations an operator may write around a JWT client: with publicUrl, with only an audience, token-only. */
function configurations(auth: AuthServer): Record<string, string> {
  const jwt = `jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}", scopes: [mcp] }`
  return {
    'jwt client, publicUrl': `publicUrl: ${GATEWAY}\nclients:\n  - id: agent\n    ${jwt}\n`,
    'jwt client, audience only': `clients:\n  - id: agent\n    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}", audience: ${GATEWAY} }\n`,
    'token client, no publicUrl': 'clients: [{ id: s, token: { value: static-token-0000001 } }]\n',
  }
}

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/)
/** Host-like values a caller may send: names, addresses, ports, IPv6, and junk. */
const hostValue = fc.oneof(
  fc
    .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.option(fc.integer({ min: 1, max: 65535 })))
    .map(([labels, port]) => `${labels.join('.')}${port === null ? '' : `:${port}`}`),
  fc.ipV4().map((ip) => `${ip}:8080`),
  fc.ipV6().map((ip) => `[${ip}]`),
  fc.string({ unit: fc.constantFrom(...'abcXYZ.:-_[]@/%'), minLength: 1, maxLength: 40 }),
)

/** Each request the property makes: the metadata documents and a challenged MCP call. */
async function observe(app: FastifyInstance, headers: Record<string, string>) {
  const root = await app.inject({ url: WELL_KNOWN, headers })
  const mcp = await app.inject({ url: `${WELL_KNOWN}/mcp`, headers })
  const challenged = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  })
  return { root, mcp, challenged }
}

describe('URLs the gateway names (issue 41 class 7)', () => {
  test('no Host, X-Forwarded-Host or Forwarded value reaches the resource metadata or WWW-Authenticate', async (t) => {
    const auth = await startAuthServer(t)
    for (const [name, yaml] of Object.entries(configurations(auth))) {
      let started: Awaited<ReturnType<typeof exampleApp>>
      try {
        // TRUST_PROXY: the forwarded headers are honoured wherever the gateway reads them.
        started = await exampleApp(t, yaml, { TRUST_PROXY: 'true' })
      } catch (err) {
        assert.ok(err instanceof ConfigError, `${name}: ${err}`)
        assert.match(err.message, /a JWT client needs publicUrl/, name)
        continue
      }
      const { app } = started
      const baseline = await observe(app, {})
      await fc.assert(
        fc.asyncProperty(hostValue, hostValue, hostValue, async (host, forwardedHost, forwarded) => {
          const seen = await observe(app, {
            host,
            'x-forwarded-host': forwardedHost,
            'x-forwarded-proto': 'http',
            forwarded: `host=${forwarded};proto=http`,
          })
          for (const key of ['root', 'mcp'] as const) {
            assert.equal(seen[key].statusCode, baseline[key].statusCode, `${name}: ${key}`)
            assert.equal(seen[key].body, baseline[key].body, `${name}: ${key} differs per request`)
            const cache = String(seen[key].headers['cache-control'] ?? '')
            if (cache.includes('public'))
              assert.equal(
                seen[key].body,
                baseline[key].body,
                `${name}: a public cache holds one caller's answer`,
              )
          }
          const challenge = String(seen.challenged.headers['www-authenticate'] ?? '')
          assert.equal(challenge, String(baseline.challenged.headers['www-authenticate'] ?? ''), name)
          const pointer = /resource_metadata="([^"]*)"/.exec(challenge)?.[1]
          if (pointer !== undefined) assert.equal(pointer, `${GATEWAY}${WELL_KNOWN}`, name)
          if (seen.root.statusCode === 200) assert.equal(seen.root.json().resource, GATEWAY, name)
          if (seen.mcp.statusCode === 200) assert.equal(seen.mcp.json().resource, `${GATEWAY}/mcp`, name)
        }),
        { numRuns: 60 },
      )
    }
  })

  test('a JWT client without publicUrl stops the start, naming publicUrl and the development value', async () => {
    const file = await configFile(
      'clients: [{ id: a, jwt: { issuer: "https://idp.example", audience: "https://gw.example" } }]\n',
    )
    await assert.rejects(
      loadConfig({ SPECS_DIR: fromRoot('specs'), TOOLGATE_CONFIG: file }, (path) => readFile(path, 'utf8')),
      (err: Error) =>
        err instanceof ConfigError &&
        /clients\[0\] \(a\)\.jwt: a JWT client needs publicUrl/.test(err.message) &&
        /publicUrl: http:\/\/localhost:3000/.test(err.message),
    )
  })
})
