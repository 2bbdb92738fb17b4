// Sessions and the seed 001 tool manifest over HTTP, on the memory store and on Redis.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { configFile, testApp } from '../helpers/app.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { privateRedis, REDIS_URL } from '../helpers/redis.js'

async function create(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return app.inject({ method: 'POST', url: '/api/sessions', payload: body, headers })
}

describe('sessions and the manifest (seed 001)', () => {
  test('POST /api/sessions → 201 { code, profile, createdAt, expiresAt }; bad profile or TTL → 400', async (t) => {
    const app = await testApp(t, { SESSION_MAX_TTL_SECONDS: '600' })
    const res = await create(app, { ttlSeconds: 120 })
    assert.equal(res.statusCode, 201)
    const session = res.json()
    assert.deepEqual(Object.keys(session), ['code', 'profile', 'createdAt', 'expiresAt'])
    assert.equal(Date.parse(session.expiresAt) - Date.parse(session.createdAt), 120_000)
    assert.equal((await create(app, { profile: 'nope' })).statusCode, 400)
    assert.equal((await create(app, { ttlSeconds: 601 })).statusCode, 400)
    assert.equal((await create(app, { ttlSeconds: 0 })).statusCode, 400)
    assert.equal((await create(app, { extra: true })).statusCode, 400)
  })

  test('the manifest: 200 with API-Version, Tool-Manifest-Version, Supported-Versions and CORS; 1.0.0 is exactly the seed shape', async (t) => {
    const app = await testApp(t)
    const { code } = (await create(app)).json()
    const res = await app.inject({
      url: `/api/sessions/${code}/metadata`,
      headers: { 'accept-version': '1.0.0', origin: 'https://agent.example' },
    })
    assert.equal(res.statusCode, 200)
    assert.equal(res.headers['api-version'], '1.0.0')
    assert.equal(res.headers['tool-manifest-version'], '1.0.0')
    assert.equal(res.headers['supported-versions'], '1.0.0, 1.1.0')
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.match(
      String(res.headers['access-control-expose-headers']),
      /API-Version.*Tool-Manifest-Version.*Supported-Versions/,
    )
    const body = res.json()
    assert.deepEqual(Object.keys(body), ['apiVersion', 'toolManifestVersion', 'supportedVersions', 'tools'])
    assert.deepEqual(body.supportedVersions, ['1.0.0', '1.1.0'])
    assert.equal(body.tools.length, 22)
    for (const tool of body.tools) assert.deepEqual(Object.keys(tool), ['name', 'description', 'inputSchema'])
    const latest = (await app.inject(`/api/sessions/${code}/metadata`)).json()
    assert.equal(latest.apiVersion, '1.1.0')
    assert.match(latest.catalogVersion, /^[0-9a-f]{16}$/)
    assert.deepEqual(Object.keys(latest.tools[0]), [
      'name',
      'description',
      'inputSchema',
      'title',
      'annotations',
    ])
    const same = await app.inject({
      url: `/api/metadata?code=${code}`,
      headers: { 'accept-version': '1.0.0' },
    })
    assert.equal(same.body, res.body, 'GET /api/metadata?code= answers identically')
  })

  test('Accept-Version: exact versions and ranges → the highest match; anything else → 406 with the seed body', async (t) => {
    const app = await testApp(t)
    const { code } = (await create(app)).json()
    const cases: [string, string | number][] = [
      ['1.0.0', '1.0.0'],
      ['1.1.0', '1.1.0'],
      ['1', '1.1.0'],
      ['1.x', '1.1.0'],
      ['^1.0.0', '1.1.0'],
      ['~1.0', '1.0.0'],
      ['>=1.0.0 <1.1.0', '1.0.0'],
      ['*', '1.1.0'],
      ['2.0.0', 406],
      ['^2', 406],
      ['banana', 406],
    ]
    for (const [header, expected] of cases) {
      const res = await app.inject({
        url: `/api/sessions/${code}/metadata`,
        headers: { 'accept-version': header },
      })
      if (expected === 406) {
        assert.equal(res.statusCode, 406, header)
        assert.deepEqual(res.json(), {
          error: 'Unsupported version',
          requestedVersion: header,
          supportedVersions: ['1.0.0', '1.1.0'],
        })
      } else {
        assert.equal(res.headers['api-version'], expected, header)
      }
    }
  })

  test('400 bad code, 401 unknown, 403 expired (not 401), 405 other methods — bodies exactly as the seed', async (t) => {
    const app = await testApp(t)
    assert.deepEqual((await app.inject('/api/sessions/abc!/metadata')).json(), {
      error: 'Invalid session code format',
    })
    assert.equal((await app.inject('/api/metadata')).statusCode, 400)
    const unknown = await app.inject(`/api/sessions/${'A'.repeat(32)}/metadata`)
    assert.deepEqual([unknown.statusCode, unknown.json()], [401, { error: 'Session not found or invalid' }])
    const { code } = (await create(app, { ttlSeconds: 1 })).json()
    await sleep(1_100)
    const expired = await app.inject(`/api/sessions/${code}/metadata`)
    assert.deepEqual([expired.statusCode, expired.json()], [403, { error: 'Session expired' }])
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({ method, url: `/api/sessions/${code}/metadata` })
      assert.deepEqual([res.statusCode, res.json()], [405, { error: 'Method not allowed' }], method)
    }
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: `/api/sessions/${code}/metadata`,
      headers: {
        origin: 'https://agent.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'accept-version',
      },
    })
    assert.equal(preflight.statusCode, 204)
    assert.match(String(preflight.headers['access-control-allow-headers']), /Accept-Version/)
  })

  test('DELETE ends a session; a profile session sees its profile view', async (t) => {
    const app = await testApp(t, {
      TOOLGATE_CONFIG: await configFile('profiles:\n  readers: { safety: { readOnly: true } }\n'),
    })
    const { code } = (await create(app, { profile: 'readers' })).json()
    const tools = (await app.inject(`/api/sessions/${code}/metadata`)).json().tools
    assert.ok(
      tools.length > 0 &&
        tools.every((tool: { annotations: { readOnlyHint: boolean } }) => tool.annotations.readOnlyHint),
    )
    assert.equal((await app.inject({ method: 'DELETE', url: `/api/sessions/${code}` })).statusCode, 204)
    assert.equal((await app.inject(`/api/sessions/${code}/metadata`)).statusCode, 401)
  })

  test('who may create sessions: anyone in development; in production only the configured token', async (t) => {
    const closed = await testApp(t, { NODE_ENV: 'production' })
    const refused = await create(closed)
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().code, 'TG_ERR_ACCESS_CLOSED')
    assert.match(refused.json().error, /clients:.*sessions: true/)
    const guarded = await testApp(t, {
      NODE_ENV: 'production',
      SESSION_TOKEN: 's3cret',
      TOOLGATE_CONFIG: await configFile('sessions:\n  createToken: { env: SESSION_TOKEN }\n'),
    })
    assert.equal((await create(guarded)).statusCode, 401)
    assert.equal((await create(guarded, {}, { authorization: 'Bearer wrong' })).statusCode, 401)
    assert.equal((await create(guarded, {}, { authorization: 'Bearer s3cret' })).statusCode, 201)
  })
})

describe('sessions on Redis', () => {
  test('shared by two gateways on one Redis (a restart or another replica sees them)', async (t) => {
    const prefix = `toolgate-test:${Date.now()}:`
    const one = await testApp(t, { REDIS_URL, REDIS_KEY_PREFIX: prefix })
    const two = await testApp(t, { REDIS_URL, REDIS_KEY_PREFIX: prefix })
    const { code } = (await create(one)).json()
    assert.equal((await two.inject(`/api/sessions/${code}/metadata`)).statusCode, 200)
    assert.equal((await two.inject({ method: 'DELETE', url: `/api/sessions/${code}` })).statusCode, 204)
    assert.equal((await one.inject(`/api/sessions/${code}/metadata`)).statusCode, 401)
  })

  test('a session held by this replica: 200 and 304 from it; deleted here → 401 at once; expired → 403', async (t) => {
    const prefix = `toolgate-test:${Date.now()}:held:`
    const app = await testApp(t, { REDIS_URL, REDIS_KEY_PREFIX: prefix })
    const { code } = (await create(app)).json()
    const url = `/api/sessions/${code}/metadata`
    // Read until the store holds it (caching turns on once Redis confirms tracking).
    for (let i = 0; i < 100 && app.sessions.cached?.(code) === undefined; i++) {
      assert.equal((await app.inject(url)).statusCode, 200)
      await sleep(20)
    }
    assert.ok(app.sessions.cached?.(code), 'held')
    const first = await app.inject(url)
    assert.equal(first.statusCode, 200)
    assert.equal(first.headers['api-version'], '1.1.0')
    assert.equal(first.headers['tool-manifest-version'], '1.1.0')
    assert.equal(first.headers['supported-versions'], '1.0.0, 1.1.0')
    const old = await app.inject({ url, headers: { 'accept-version': '1.0.0' } })
    assert.equal(old.headers['api-version'], '1.0.0')
    assert.notEqual(old.body, first.body)
    const etag = String(first.headers.etag)
    const unchanged = await app.inject({ url, headers: { 'if-none-match': etag } })
    assert.deepEqual([unchanged.statusCode, unchanged.body], [304, ''])
    assert.equal(unchanged.headers.etag, etag)
    const query = await app.inject(`/api/metadata?code=${code}`)
    assert.equal(query.body, first.body)
    assert.equal((await app.inject({ url, headers: { 'accept-version': '^2' } })).statusCode, 406)
    assert.equal((await app.inject({ method: 'DELETE', url: `/api/sessions/${code}` })).statusCode, 204)
    const deleted = await app.inject(url)
    assert.deepEqual([deleted.statusCode, deleted.json()], [401, { error: 'Session not found or invalid' }])

    const short = (await create(app, { ttlSeconds: 1 })).json().code
    const shortUrl = `/api/sessions/${short}/metadata`
    for (let i = 0; i < 40 && app.sessions.cached?.(short) === undefined; i++) await app.inject(shortUrl)
    assert.ok(app.sessions.cached?.(short), 'held')
    await sleep(1_100)
    assert.ok(app.sessions.cached?.(short), 'still held: expired, within its grace period')
    const expired = await app.inject(shortUrl)
    assert.deepEqual([expired.statusCode, expired.json()], [403, { error: 'Session expired' }])
  })

  test('Accept-Version: a repeated header answers as the first time (semver parses it once)', async () => {
    const { negotiateVersion } = await import('../../plugins/manifest.js')
    const { maxSatisfying, validRange } = await import('semver')
    const reference = (header: string) => {
      if (header.trim() === '') return '1.1.0'
      if (validRange(header.trim()) === null) return undefined
      return maxSatisfying(['1.0.0', '1.1.0'], header.trim()) ?? undefined
    }
    const headers = fc.oneof(
      fc.constantFrom('1', '1.x', '^1.0.0', '~1.0', '2', 'banana', '', ' ', '*', '>=1.0.0 <1.1.0', '1.0.0'),
      fc.string({ maxLength: 12 }),
    )
    // More distinct values than are kept: those past the bound are negotiated every time, the same.
    fc.assert(
      fc.property(fc.array(headers, { minLength: 1, maxLength: 200 }), (values) => {
        for (const value of [...values, ...values])
          assert.equal(negotiateVersion(value), reference(value), value)
      }),
      { numRuns: 100 },
    )
    assert.equal(negotiateVersion(undefined), '1.1.0')
  })

  test('Redis stopped: session routes answer 503 at once, the rest serves, /ready stays 200 (degraded); then it recovers', {
    timeout: HANG_BOUND_MS,
  }, async (t) => {
    const redis = await privateRedis(t)
    const app = await testApp(t, { REDIS_URL: redis.url })
    const { code } = (await create(app)).json()
    await redis.stop()
    const down = await create(app)
    assert.equal(down.statusCode, 503)
    assert.equal(down.headers['retry-after'], '5')
    assert.match(down.json().error, /Session store unavailable/)
    assert.equal((await app.inject(`/api/sessions/${code}/metadata`)).statusCode, 503)
    assert.equal((await app.inject('/discovery')).statusCode, 200)
    const ready = await app.inject('/ready')
    assert.equal(ready.statusCode, 200)
    assert.deepEqual(ready.json().sessions, { store: 'redis', status: 'degraded' })
    await redis.start()
    let recovered = 0
    for (let i = 0; i < 50 && recovered !== 201; i++) {
      await sleep(200)
      recovered = (await create(app)).statusCode
    }
    assert.equal(recovered, 201, 'sessions work again without a restart')
    assert.deepEqual((await app.inject('/ready')).json().sessions, { store: 'redis', status: 'ok' })
  })
})
