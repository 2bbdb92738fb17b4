// Issue 19: the executor's dry run redacts every credential at the source, whatever the secret.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { Secret } from '../../src/config/secrets.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf, ok, openapi } from '../helpers/memory-catalog.js'
import { startUpstream } from '../helpers/upstreams.js'

const spec = openapi(
  {
    '/keys/{id}': {
      post: {
        operationId: 'keys',
        security: [{ key: [], queryKey: [], cookieKey: [] }],
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
          { name: 'pref', in: 'cookie', schema: { type: 'string' } },
        ],
        requestBody: {
          content: {
            'application/json': { schema: { type: 'object', properties: { note: { type: 'string' } } } },
          },
        },
        responses: ok,
      },
    },
    '/basic': { get: { operationId: 'basic', security: [{ basic: [] }], responses: ok } },
    '/joined': { get: { operationId: 'joined', security: [{ joined: [] }], responses: ok } },
    '/bearer': { get: { operationId: 'bearer', security: [{ token: [] }], responses: ok } },
  },
  {
    components: {
      securitySchemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
        cookieKey: { type: 'apiKey', in: 'cookie', name: 'sid' },
        basic: { type: 'http', scheme: 'basic' },
        joined: { type: 'http', scheme: 'basic' },
        token: { type: 'http', scheme: 'bearer' },
      },
    },
  },
)

// Long enough that it cannot turn up in an answer by chance; printable ASCII as a header carries.
const secretText = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 12,
  maxLength: 40,
})

test('property: a generated secret of every credential kind never appears in the serialized dry run', async (t) => {
  const upstream = await startUpstream(t)
  const catalog = await catalogOf({ 's.yaml': spec })
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(secretText, { minLength: 6, maxLength: 6 }),
      fc.record({ id: fc.string({ minLength: 1 }), q: fc.string(), pref: fc.string(), note: fc.string() }),
      async ([key, query, cookie, password, token, opal], args) => {
        const secrets = [key, query, cookie, password, token, opal] as string[]
        fc.pre(!secrets.some((secret) => JSON.stringify(args).includes(secret)))
        const { dryRun } = executorFor(t, catalog, {
          services: { s: { upstream: upstream.url, forwardAccessToken: true } },
          credentials: {
            s: {
              key: { kind: 'secret', secret: new Secret(key!) },
              queryKey: { kind: 'secret', secret: new Secret(query!) },
              cookieKey: { kind: 'secret', secret: new Secret(cookie!) },
              basic: { kind: 'basic', username: new Secret('user'), password: new Secret(password!) },
              joined: { kind: 'secret', secret: new Secret(`user:${password}`) },
              token: { kind: 'secret', secret: new Secret(token!) },
            },
          },
        })
        const answers = [
          await dryRun('s:keys', args),
          await dryRun('s:basic', {}),
          await dryRun('s:joined', {}),
          await dryRun('s:bearer', {}),
          await dryRun('s:bearer', {}, { accessToken: opal! }),
        ]
        for (const answer of answers) assert.equal(answer.kind, 'dry-run', JSON.stringify(answer))
        const serialized = JSON.stringify(answers)
        for (const secret of secrets)
          for (const form of [
            secret,
            encodeURIComponent(secret),
            Buffer.from(`user:${secret}`).toString('base64'),
          ])
            assert.ok(!serialized.includes(form), `${form} appears in ${serialized}`)
        const [keys, basic, joined, bearer, forwarded] = answers.map((a) =>
          a.kind === 'dry-run' ? a.request : undefined,
        )
        assert.equal(keys?.headers['x-api-key'], '[redacted]')
        assert.match(keys?.url ?? '', /[?&]api_key=\[redacted\]$/)
        assert.match(keys?.headers.cookie ?? '', /(^|; )sid=\[redacted\]$/)
        assert.equal(basic?.headers.authorization, 'Basic [redacted]')
        assert.equal(joined?.headers.authorization, 'Basic [redacted]')
        assert.equal(bearer?.headers.authorization, 'Bearer [redacted]')
        assert.equal(forwarded?.headers.authorization, 'Bearer [redacted]')
      },
    ),
    { numRuns: 200 },
  )
  assert.equal(upstream.received.length, 0, 'a dry run sends nothing')
})

test('a real call and its dry run differ only in the credential values', async (t) => {
  const upstream = await startUpstream(t)
  const { call, dryRun } = executorFor(t, await catalogOf({ 's.yaml': spec }), {
    services: { s: { upstream: upstream.url } },
    credentials: {
      s: {
        key: { kind: 'secret', secret: new Secret('k-123') },
        queryKey: { kind: 'secret', secret: new Secret('q 456&') },
        cookieKey: { kind: 'secret', secret: new Secret('c789') },
      },
    },
  })
  const args = { id: '../x', q: 'é ?', pref: 'dark', note: 'n' }
  const preview = await dryRun('s:keys', args, { requestId: 'r-1' })
  assert.equal(upstream.received.length, 0)
  await call('s:keys', args, { requestId: 'r-1' })
  const [received] = upstream.received
  assert.ok(preview.kind === 'dry-run')
  assert.equal(preview.request.url, `${upstream.url}/keys/..%2Fx?q=%C3%A9%20%3F&api_key=[redacted]`)
  assert.equal(received?.target, '/keys/..%2Fx?q=%C3%A9%20%3F&api_key=q%20456%26')
  assert.deepEqual(
    { ...preview.request.headers, 'x-api-key': 'k-123', cookie: 'pref=dark; sid=c789' },
    Object.fromEntries(
      Object.entries(received!.headers).filter(
        ([name]) => !['host', 'connection', 'content-length'].includes(name),
      ),
    ),
  )
})
