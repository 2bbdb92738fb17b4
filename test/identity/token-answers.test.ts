// Issue 45, hostile class: whatever a token endpoint answers, the gateway takes a usable Bearer
// token or names what was wrong — never a crash, never a token with characters a header cannot carry.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import fc from 'fast-check'
import { Agent } from 'undici'
import { fetchToken } from '../../src/identity/index.js'

type After = { after(fn: () => Promise<unknown>): void }

interface Answer {
  status: number
  contentType: string
  body: string
}

/** A real token endpoint that answers whatever the test sets next. */
async function startEndpoint(t: After) {
  const next: { answer: Answer } = { answer: { status: 200, contentType: 'application/json', body: '{}' } }
  const server = createServer((req, res) => {
    req.resume()
    res.writeHead(next.answer.status, { 'content-type': next.answer.contentType })
    res.end(next.answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => server.close(() => resolve(undefined))))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, next }
}

const tokenLike = fc.oneof(
  fc.string({ maxLength: 64 }),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom('', ' ', 'a b', 'tok\nen', 'ok-token'),
)
const expiresLike = fc.oneof(
  fc.integer({ min: -10, max: 40_000_000 }),
  fc.double(),
  fc.constantFrom('3600', '-1', 'soon', null, true, [], {}),
)
const jsonAnswers = fc.record(
  {
    access_token: fc.oneof(tokenLike, fc.jsonValue()),
    token_type: fc.oneof(fc.constantFrom('Bearer', 'bearer', 'DPoP', 'N_A'), fc.string({ maxLength: 10 })),
    expires_in: expiresLike,
    error: fc.oneof(fc.constantFrom('invalid_client', 'invalid_grant'), fc.string({ maxLength: 20 })),
  },
  { requiredKeys: [] },
)
/** Answers near a good one, so the success path is checked as often as the failures. */
const nearlyGood = fc
  .record({
    access_token: fc.oneof(fc.stringMatching(/^[\x21-\x7e]{1,40}$/), tokenLike),
    token_type: fc.constantFrom('Bearer', 'bearer', 'DPoP'),
    expires_in: fc.oneof(fc.integer({ min: 1, max: 86_400 }), expiresLike),
  })
  .map((value) => JSON.stringify(value))
const answers: fc.Arbitrary<Answer> = fc.record({
  status: fc.constantFrom(200, 200, 200, 400, 401, 403, 500, 503, 302),
  contentType: fc.constantFrom('application/json', 'text/html', 'text/plain'),
  body: fc.oneof(
    nearlyGood,
    jsonAnswers.map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 200 }),
  ),
})

test('property: any token answer is a header-safe Bearer token or a named failure', async (t) => {
  const endpoint = await startEndpoint(t)
  const dispatcher = new Agent()
  t.after(() => dispatcher.close())
  const seen = { tokens: 0, refused: 0, invalid: 0 }
  await fc.assert(
    fc.asyncProperty(answers, async (answer) => {
      endpoint.next.answer = answer
      const result = await fetchToken(
        {
          tokenUrl: endpoint.url,
          clientId: 'gateway',
          clientSecret: 'secret-value-1',
          auth: 'client_secret_basic',
          form: { grant_type: 'client_credentials' },
        },
        { dispatcher, timeoutMs: 5_000 },
      )
      if ('failure' in result) {
        assert.ok(['unreachable', 'refused', 'invalid'].includes(result.failure))
        if (result.failure !== 'unreachable') seen[result.failure]++
        assert.ok(result.detail.length > 0)
        assert.ok(!result.detail.includes('secret-value-1'))
        if (result.failure === 'refused') assert.match(result.oauthError ?? '', /^[\x20-\x7e]+$/)
        return
      }
      seen.tokens++
      assert.equal(answer.status, 200)
      assert.match(result.accessToken, /^[\x21-\x7e]{1,16384}$/)
      assert.ok(
        result.expiresIn === undefined ||
          (Number.isInteger(result.expiresIn) && result.expiresIn > 0 && result.expiresIn <= 31_536_000),
      )
    }),
    { numRuns: 300 },
  )
  // The generator reaches every outcome, so the property checks each of them.
  assert.ok(seen.tokens > 0 && seen.refused > 0 && seen.invalid > 0, JSON.stringify(seen))
})

test('an endpoint quoting back the client secret or subject token as its error code: the code is not passed on, a plain one is', async (t) => {
  const dispatcher = new Agent()
  t.after(() => dispatcher.close())
  // A careless endpoint: its `error` is what it was sent (the secret of the basic pair or the form, the subject token) or a real code.
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    const basic = Buffer.from(String(req.headers.authorization ?? '').slice(6), 'base64').toString('utf8')
    const secret = form.get('client_secret') ?? decodeURIComponent(basic.slice(basic.indexOf(':') + 1))
    const echo = form.get('scope') === 'echo-subject' ? form.get('subject_token') : secret
    res.writeHead(400, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: form.get('scope') === 'plain' ? 'invalid_client' : echo }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => server.close(() => resolve(undefined))))
  const tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`
  const ask = (auth: 'client_secret_basic' | 'client_secret_post', form: Record<string, string>) =>
    fetchToken(
      { tokenUrl, clientId: 'gateway', clientSecret: 'the-client-secret-42', auth, form },
      { dispatcher, timeoutMs: 5_000 },
    )
  for (const auth of ['client_secret_basic', 'client_secret_post'] as const) {
    const echoed = await ask(auth, { grant_type: 'client_credentials' })
    assert.ok('failure' in echoed && echoed.failure === 'refused', JSON.stringify(echoed))
    assert.equal(echoed.oauthError, undefined)
    assert.doesNotMatch(JSON.stringify(echoed), /the-client-secret-42/)
    assert.match(echoed.detail, /quotes the credentials/)
  }
  const subject = await ask('client_secret_basic', {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: 'subject-token-of-the-caller-7',
    scope: 'echo-subject',
  })
  assert.ok('failure' in subject && subject.oauthError === undefined, JSON.stringify(subject))
  assert.doesNotMatch(JSON.stringify(subject), /subject-token-of-the-caller-7/)
  const plain = await ask('client_secret_post', { grant_type: 'client_credentials', scope: 'plain' })
  assert.ok('failure' in plain && plain.oauthError === 'invalid_client', JSON.stringify(plain))
})
