import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { ConfigError, catalogOptions, loadConfig, specReadLimits } from '../../src/config/load-config.js'

const files = (map: Record<string, string>) => async (path: string) => {
  if (!(path in map)) throw new Error(`ENOENT: ${path}`)
  return map[path]!
}

describe('configuration (SPEC §4)', () => {
  test('nothing configured: embedded defaults, the example upstream on', async () => {
    const config = await loadConfig({}, files({}))
    assert.equal(config.port, 3000)
    assert.equal(config.host, '0.0.0.0')
    assert.equal(config.specsDir, 'specs')
    assert.equal(config.redisUrl, undefined)
    assert.equal(config.exampleUpstream, true)
    assert.equal(config.drainDelayMs, 0)
    assert.ok(Object.isFrozen(config))
  })

  test('SPECS_DIR set by the caller keeps the example upstream off; production drains 5 s', async () => {
    const config = await loadConfig(
      { SPECS_DIR: '/srv/specs', PORT: '8080', NODE_ENV: 'production' },
      files({}),
    )
    assert.equal(config.exampleUpstream, false)
    assert.equal(config.port, 8080)
    assert.equal(config.drainDelayMs, 5000)
  })

  test('every bad variable is named in one error', async () => {
    await assert.rejects(
      loadConfig(
        { PORT: 'eighty', LOG_LEVEL: 'loud', REDIS_URL: 'localhost:6379', DRAIN_DELAY: '-1' },
        files({}),
      ),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError)
        assert.equal(err.problems.length, 4)
        for (const name of ['PORT', 'LOG_LEVEL', 'REDIS_URL', 'DRAIN_DELAY'])
          assert.match(err.message, new RegExp(`environment variable ${name}`))
        return true
      },
    )
  })

  test('the YAML file: services, profiles and policies reach the catalog options', async () => {
    const yaml =
      'services:\n  helpdesk: { source: tickets.yaml, alias: hd, upstream: "http://127.0.0.1:9/x" }\nprofiles:\n  readers: { safety: { readOnly: true } }\npolicies:\n  - { tools: ["billing:*"], requiresApproval: true }\n'
    const config = await loadConfig({ TOOLGATE_CONFIG: 'gw.yaml' }, files({ 'gw.yaml': yaml }))
    assert.deepEqual(catalogOptions(config), {
      services: { helpdesk: { source: 'tickets.yaml', alias: 'hd', upstream: 'http://127.0.0.1:9/x' } },
      profiles: { readers: { safety: { readOnly: true } } },
      policies: [{ tools: ['billing:*'], requiresApproval: true }],
      configFile: 'gw.yaml',
    })
  })

  test('the YAML file: unknown keys, wrong types, unreadable and unparsable files are named', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'gw.yaml': 'profiles:\n  a:\n    safty: {}\n' }, /gw\.yaml: profiles\.a\.safty: unknown key/],
      [
        { 'gw.yaml': 'services:\n  a: { upstream: ftp://x }\n' },
        /gw\.yaml: services\.a\.upstream: must match pattern/,
      ],
      [{ 'gw.yaml': 'policies: {}\n' }, /gw\.yaml: policies: must be array/],
      [{ 'gw.yaml': 'services: [\n' }, /gw\.yaml is not valid YAML/],
      [{}, /TOOLGATE_CONFIG: cannot read gw\.yaml/],
    ]
    for (const [map, message] of cases) {
      await assert.rejects(loadConfig({ TOOLGATE_CONFIG: 'gw.yaml' }, files(map)), message)
    }
  })

  test('limits.specBytes and limits.readTimeoutMs reach the spec reader; out of range values are named', async () => {
    assert.deepEqual(specReadLimits(await loadConfig({}, files({}))), {})
    const set = await loadConfig(
      { TOOLGATE_CONFIG: 'gw.yaml' },
      files({ 'gw.yaml': 'limits:\n  specBytes: 4096\n  readTimeoutMs: 250\n' }),
    )
    assert.deepEqual(specReadLimits(set), { maxBytes: 4096, timeoutMs: 250 })
    await assert.rejects(
      loadConfig({ TOOLGATE_CONFIG: 'gw.yaml' }, files({ 'gw.yaml': 'limits:\n  specBytes: 10\n' })),
      /gw\.yaml: limits\.specBytes: must be >= 1024/,
    )
    await assert.rejects(
      loadConfig({ TOOLGATE_CONFIG: 'gw.yaml' }, files({ 'gw.yaml': 'limits:\n  readTimeoutMs: 0\n' })),
      /gw\.yaml: limits\.readTimeoutMs: must be >= 100/,
    )
  })
})
