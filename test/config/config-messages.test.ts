// Issue 42 item 6: a configuration mistake a newcomer makes is named as what it is. A union of
// forms (a secret source, a token, a credential) used to answer with its first branch's errors: a
// bad token.sha256 was an "unknown key", a plain string a secret "must be object". Generated values.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { ConfigError, loadConfig } from '../../src/config/load-config.js'

/** The problems loadConfig reports for a TOOLGATE_CONFIG holding `file` (as JSON, which is YAML). */
async function problemsOf(file: unknown): Promise<readonly string[]> {
  try {
    await loadConfig({ TOOLGATE_CONFIG: 'gw.yaml' }, async () => JSON.stringify(file))
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err))
    return err.problems
  }
  assert.fail('the configuration was accepted')
}

const withToken = (token: unknown) => ({ clients: [{ id: 'a', token, tools: ['*'] }] })
const withCredential = (credential: unknown) => ({
  services: { tickets: { credentials: { bearerAuth: credential } } },
})
const withRemoteToken = (token: unknown) => ({
  remoteSources: [{ id: 'r', baseUrl: 'https://tools.example', token }],
})

const HEX = '0123456789abcdefABCDEF'.split('')
const hex = (min: number, max: number) =>
  fc.array(fc.constantFrom(...HEX), { minLength: min, maxLength: max })

/** Strings that are not 64 hex characters: too short, too long, or 64 with a non-hex character. */
const badSha256 = fc.oneof(
  hex(0, 63).map((chars) => chars.join('')),
  hex(65, 90).map((chars) => chars.join('')),
  fc
    .tuple(
      hex(64, 64),
      fc.nat(63),
      fc.string({ minLength: 1, maxLength: 1 }).filter((c) => !/[0-9a-f]/i.test(c)),
    )
    .map(([chars, at, c]) => chars.map((x, i) => (i === at ? c : x)).join('')),
  fc.string({ maxLength: 80 }).filter((text) => !/^[0-9a-fA-F]{64}$/.test(text)),
)

/** What is no secret source: a plain value, a list, or an object without exactly one of its keys. */
const notASource = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  fc.constant({}),
  fc
    .subarray(['env', 'file', 'value'], { minLength: 2 })
    .map((keys) => Object.fromEntries(keys.map((key) => [key, 'SOMETHING']))),
  fc.constantFrom('secret', 'token', 'Env', 'path', 'fromEnv').map((key) => ({ [key]: 'SOMETHING' })),
)

describe('configuration messages name what is wrong (issue 42)', () => {
  test('property: a bad token.sha256 says it must be 64 hex characters, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(badSha256, async (sha256) => {
        const problems = await problemsOf(withToken({ sha256 }))
        assert.deepEqual(problems, [
          'gw.yaml: clients.0.token.sha256: must be 64 hex characters (0-9, a-f): the SHA-256 of the token, as `toolgate token new` prints it',
        ])
      }),
      { numRuns: 150 },
    )
  })

  test('property: anything but a secret source where one is expected names its forms', async () => {
    const places = [
      { make: withToken, where: 'clients.0.token', forms: '{ env }, { file }, { value } or { sha256 }' },
      {
        make: withCredential,
        where: 'services.tickets.credentials.bearerAuth',
        forms:
          '{ env }, { file }, { value }, { username, password } or { clientId, clientSecret, tokenUrl, scopes, audience, auth }',
      },
      { make: withRemoteToken, where: 'remoteSources.0.token', forms: '{ env }, { file } or { value }' },
    ]
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...places), notASource, async ({ make, where, forms }, value) => {
        const problems = await problemsOf(make(value))
        assert.equal(problems.length, 1, problems.join('\n'))
        assert.ok(problems[0]!.startsWith(`gw.yaml: ${where}: must be ${forms}, not `), problems[0])
        assert.doesNotMatch(problems[0]!, /unknown key|must be object|must match/)
      }),
      { numRuns: 150 },
    )
  })

  test('a value of the right form but a bad part names the part; a secret value is never shown', async () => {
    assert.deepEqual(await problemsOf(withToken({ env: '' })), [
      'gw.yaml: clients.0.token.env: must NOT have fewer than 1 characters',
    ])
    const basic = await problemsOf(withCredential({ username: 'u', password: 'a-plain-secret-0042' }))
    assert.deepEqual(basic, [
      'gw.yaml: services.tickets.credentials.bearerAuth.password: must be { env }, { file } or { value }, not a string',
    ])
    const plain = await problemsOf(withToken('a-plain-secret-0042'))
    assert.doesNotMatch(plain.join('\n'), /a-plain-secret-0042/)
  })

  test('a union of literals names them: mcpMode and a rate limit', async () => {
    assert.deepEqual(await problemsOf({ profiles: { p: { mcpMode: 'lists' } } }), [
      'gw.yaml: profiles.p.mcpMode: must be "list" or "search", not a string',
    ])
    assert.deepEqual(await problemsOf({ rateLimits: { anonymous: true } }), [
      'gw.yaml: rateLimits.anonymous: must be false or { max, windowSeconds }, not a boolean',
    ])
  })
})
