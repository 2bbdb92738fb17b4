// Issue 45: expiry and refresh of fetched tokens, against a real authorization server, with the
// cache's clock moved by the test (no waiting, no timed assertion).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Agent } from 'undici'
import { Secret } from '../../src/config/secrets.js'
import { createUpstreamTokens, type TokenNeed } from '../../src/identity/index.js'
import { startOidcServer } from '../helpers/oidc-provider.js'

test('a token is used until shortly before expires_in, then fetched again; a failure is never cached', async (t) => {
  const oidc = await startOidcServer(t, [{ client_id: 'gateway', client_secret: 'gateway-secret-1' }])
  oidc.accessTokenTtl = 600
  const dispatcher = new Agent()
  t.after(() => dispatcher.close())
  let clock = 1_000_000
  const tokens = createUpstreamTokens({ dispatcher, timeoutMs: 5_000, now: () => clock })
  const need = (clientSecret: string): TokenNeed => ({
    service: 'api',
    scheme: 'oauth',
    owner: 'gateway',
    tokenUrl: oidc.tokenUrl,
    scopes: ['tickets:read'],
    credential: {
      kind: 'oauth2-client',
      clientId: new Secret('gateway'),
      clientSecret: new Secret(clientSecret),
      auth: 'client_secret_basic',
    },
  })
  const first = await tokens.token(need('gateway-secret-1'))
  assert.equal(typeof first, 'string')
  clock += 530_000 // 530 s of 600: still before the refresh point (600 s less 60 s)
  assert.equal(await tokens.token(need('gateway-secret-1')), first)
  assert.equal(oidc.tokenRequests(), 1)
  clock += 20_000 // 550 s: within the last minute, refreshed before it expires
  const second = await tokens.token(need('gateway-secret-1'))
  assert.equal(typeof second, 'string')
  assert.notEqual(second, first)
  assert.equal(oidc.tokenRequests(), 2)
  // A short-lived token is refreshed at 90 % of its life.
  oidc.accessTokenTtl = 100
  clock += 600_000
  const short = await tokens.token(need('gateway-secret-1'))
  clock += 89_000
  assert.equal(await tokens.token(need('gateway-secret-1')), short)
  clock += 2_000
  assert.notEqual(await tokens.token(need('gateway-secret-1')), short)
  assert.equal(oidc.tokenRequests(), 4)
  // A refusal (another owner, a wrong secret) is answered to the call and asked again next time.
  const refused = await tokens.token({ ...need('wrong'), owner: 'team-a' })
  assert.equal(typeof refused === 'object' && refused.failure, 'refused')
  const again = await tokens.token({ ...need('wrong'), owner: 'team-a' })
  assert.equal(typeof again === 'object' && again.oauthError, 'invalid_client')
  assert.equal(oidc.tokenRequests(), 6)
})
