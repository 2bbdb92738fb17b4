// Issue 41 class 3: no secret becomes problem, response or log text, whatever it holds and
// whichever way the gateway fails around it (generated secrets through every error path).
import assert from 'node:assert/strict'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import fc from 'fast-check'
import { buildApp, REDACTED_PATHS } from '../../src/app.js'
import { fsSourceReader } from '../../src/catalog/index.js'
import { loadConfig } from '../../src/config/load-config.js'
import { startAuthServer } from '../helpers/auth-server.js'
import {
  API_AUDIENCE,
  type OidcServer,
  oauthSpec,
  type ProtectedApi,
  startOidcServer,
  startProtectedApi,
} from '../helpers/oidc-provider.js'
import { fromRoot } from '../helpers/paths.js'
import { remoteTool } from '../helpers/remote-tools.js'
import { closedPort, type Received, startUpstream } from '../helpers/upstreams.js'

const printable = fc
  .integer({ min: 0x21, max: 0x7e })
  .map((code) => String.fromCharCode(code))
  .filter((char) => char !== '`')
const word = fc.string({ unit: printable, minLength: 2, maxLength: 5 })
/** Line breaks and controls: what fetch quoted whole into its error (issue 41). */
const control = fc.constantFrom('\n', '\r\n', '\r', '\t', '\0', '\x1b[2J', '\x7f', ' ', '"', '\\')
/** Beyond ASCII: what no header carries. */
const unicode = fc.oneof(
  fc.constantFrom('é', '😀', '\u0085', '\u2028', '\ufeff'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }),
)
const pieces = (extra: fc.Arbitrary<string>, minLength: number, maxLength: number) =>
  fc.array(fc.oneof({ weight: 3, arbitrary: word }, { weight: 1, arbitrary: extra }), {
    minLength,
    maxLength,
  })
/**
 * A secret: pieces joined by a backtick, a character no gateway text holds, so any six characters
 * of it found in the output came from it (not from "127.0.0.1" or a tool name it happens to share).
 * Printable ones reach the serving paths; the others are refused at load, or once leaked.
 */
const secretArb = fc
  .oneof(
    { weight: 2, arbitrary: fc.array(word, { minLength: 4, maxLength: 40 }) },
    { weight: 2, arbitrary: pieces(control, 4, 40) },
    { weight: 1, arbitrary: pieces(unicode, 4, 40) },
    { weight: 1, arbitrary: pieces(fc.oneof(control, unicode), 300, 400) },
    // Ending in spaces or tabs: HTTP trims them off a header value, so a peer quotes it back shorter.
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.array(word, { minLength: 3, maxLength: 10 }),
          fc.constantFrom(' ', '\t', ' \t', '\t\t', '  '),
        )
        .map(([parts, tail]) => [...parts, tail]),
    },
  )
  .map((parts) => `S\`${parts.join('`')}`)

/** YAML double-quoted, every character outside printable ASCII escaped (YAML refuses some raw). */
const yamlQuote = (text: string) =>
  `"${[...text]
    .map((char) => {
      const code = char.codePointAt(0)!
      if (char === '"' || char === '\\') return `\\${char}`
      if (code >= 0x20 && code <= 0x7e) return char
      return code > 0xffff
        ? `\\U${code.toString(16).padStart(8, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`
    })
    .join('')}"`

/**
 * Every run of six characters of the secret that holds a backtick, as it is and as JSON escapes it
 * (responses and log lines are JSON): none may appear in `text`.
 */
function leaked(secret: string, text: string): string | undefined {
  for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
    if (text.includes(form)) return form
    for (let i = 0; i + 6 <= form.length; i++) {
      const part = form.slice(i, i + 6)
      if (part.includes('`') && text.includes(part)) return part
    }
  }
  return undefined
}

const OPERATOR = 'operator-token-0123456789'
/** Where the generated secret goes; every other slot holds a plain one (so one slot's check cannot hide another's path). */
const SLOTS = ['apiKey', 'bearer', 'basicPassword', 'remoteToken', 'clientToken', 'sessionToken'] as const
type Slot = (typeof SLOTS)[number]
const PLAIN = 'plain-secret-0123456789'

type RemoteMode = 'refused' | 'unauthorized' | 'echo-html' | 'echo-keys' | 'echo-status' | 'too-large' | 'ok'

test('generated secrets through every error path: none reaches /ready, /catalog, a refusal, an error or the log', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-leaks-'))
  let secret = ''
  let mode: RemoteMode = 'ok'
  const remote = await startUpstream(t, (received, res) => {
    // What a careless source does: quote back the token it was sent.
    const token = String(received.headers.authorization ?? '').replace(/^Bearer /, '')
    if (received.target.startsWith('/mcp/tools/list')) {
      if (mode === 'unauthorized') {
        res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' })
        return void res.end()
      }
      if (mode === 'echo-html') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.end(`<html>bad token: ${token} (${JSON.stringify(token)})</html>`)
      }
      if (mode === 'echo-keys') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.end(JSON.stringify({ [token]: 'unknown token', [`${token}!`]: 1 }))
      }
      if (mode === 'echo-status') {
        res.writeHead(403, `forbidden ${token}`)
        return void res.end()
      }
      if (mode === 'too-large') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.end(`{"tools":[],"pad":"${'a'.repeat(20_000)}"}`)
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      return void res.end(JSON.stringify({ tools: [remoteTool] }))
    }
    res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' })
    res.end('{"error":"no"}')
  })
  const upstream = await startUpstream(t, (_received, res) => {
    res.writeHead(502, { 'content-type': 'application/json' })
    res.end('{"error":"down"}')
  })
  const down = await closedPort()
  const reached = { refusedAtLoad: 0, served: 0, modes: new Set<RemoteMode>(), statuses: new Set<number>() }

  await fc.assert(
    fc.asyncProperty(
      secretArb,
      fc.constantFrom<RemoteMode>(
        'refused',
        'unauthorized',
        'echo-html',
        'echo-keys',
        'echo-status',
        'too-large',
        'ok',
      ),
      fc.subarray([...SLOTS], { minLength: 1 }),
      async (generated, remoteMode, slots) => {
        secret = generated
        mode = remoteMode
        const at = (slot: Slot) => (slots.includes(slot) ? secret : PLAIN)
        await writeFile(join(dir, 'password'), `${at('basicPassword')}\n`)
        const remoteUrl = mode === 'refused' ? `http://127.0.0.1:${down}` : remote.url
        await writeFile(
          join(dir, 'gw.yaml'),
          [
            'limits: { remoteSourceBytes: 4096 }',
            'services:',
            '  tickets:',
            `    upstream: ${upstream.url}/tickets`,
            '    credentials:',
            `      apiKeyAuth: { value: ${yamlQuote(at('apiKey'))} }`,
            '      bearerAuth: { env: TG_TEST_BEARER }',
            '  billing:',
            `    upstream: ${upstream.url}/billing`,
            `    credentials: { basicAuth: { username: u, password: { file: ${join(dir, 'password')} } } }`,
            'remoteSources:',
            `  - { id: cms, baseUrl: "${remoteUrl}", required: false, token: { value: ${yamlQuote(at('remoteToken'))} } }`,
            'clients:',
            `  - { id: ops, token: { value: ${OPERATOR} }, operator: true, sessions: true }`,
            '  - { id: other, token: { env: TG_TEST_CLIENT }, tools: [] }',
            `sessions: { createToken: { value: ${yamlQuote(at('sessionToken'))} } }`,
          ].join('\n'),
        )
        const out: string[] = []
        const stream = new Writable({
          write(chunk, _encoding, done) {
            out.push(chunk.toString())
            done()
          },
        })
        let config: Awaited<ReturnType<typeof loadConfig>>
        try {
          config = await loadConfig(
            {
              SPECS_DIR: fromRoot('specs'),
              TOOLGATE_CONFIG: join(dir, 'gw.yaml'),
              TG_TEST_BEARER: at('bearer'),
              TG_TEST_CLIENT: at('clientToken'),
            },
            (path) => readFile(path, 'utf8'),
          )
        } catch (err) {
          // Refused at load: the message names where, never what.
          const message = `${(err as Error).message}\n${(err as Error).stack}`
          assert.match(message, /invalid configuration/)
          assert.equal(leaked(secret, message), undefined, message)
          reached.refusedAtLoad++
          return
        }
        const app = await buildApp({
          config,
          reader: fsSourceReader,
          logger: { level: 'trace', stream, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
        })
        try {
          const operator = { authorization: `Bearer ${OPERATOR}` }
          const responses = [
            await app.inject('/ready'),
            await app.inject({ url: '/catalog', headers: operator }),
            await app.inject({ url: '/catalog/reloads', headers: operator }),
            await app.inject({ url: '/catalog', headers: { authorization: `Bearer ${secret}` } }),
            await app.inject({ url: '/catalog', headers: { authorization: `Bearer ${secret}x` } }),
            await app.inject({
              method: 'POST',
              url: '/tools/tickets_get_ticket',
              headers: operator,
              payload: { ticketId: 'T-1' },
            }),
            await app.inject({
              method: 'POST',
              url: '/tools/billing_get_invoice',
              headers: operator,
              payload: {},
            }),
            await app.inject({
              method: 'POST',
              url: '/tools/cms_node_create',
              headers: operator,
              payload: { title: 'x' },
            }),
            await app.inject({ method: 'POST', url: '/api/sessions', headers: operator, payload: {} }),
          ]
          await app.catalogStore.reload('manual')
          responses.push(await app.inject('/ready'))
          reached.served++
          reached.modes.add(mode)
          for (const response of responses) reached.statuses.add(response.statusCode)
          const text = [...responses.map((r) => `${r.body} ${JSON.stringify(r.headers)}`), ...out].join('\n')
          const part = leaked(secret, text)
          assert.equal(
            part,
            undefined,
            `the secret's ${JSON.stringify(part)} appeared in:\n${text.slice(0, 4000)}`,
          )
          if (mode !== 'ok')
            assert.ok(
              (await app.inject('/ready')).json().remoteSources[0].status !== 'ok',
              'the remote path failed as meant',
            )
        } finally {
          await app.close()
        }
      },
    ),
    { numRuns: 80 },
  )
  t.diagnostic(
    `refused at load ${reached.refusedAtLoad}, served ${reached.served} (remote ${[...reached.modes].sort().join(', ')}; statuses ${[...reached.statuses].sort().join(', ')})`,
  )
  assert.ok(reached.refusedAtLoad > 0 && reached.served > 0, 'both the load and the serving paths ran')
})

// Issue 45's secret slots: the client secret of client credentials, the token it fetches, the token
// exchange's client secret, the caller's subject token and the token it is exchanged for, and a
// client's own credentials; against a real authorization server (oidc-provider) or a real token
// endpoint that misbehaves.
const IDENTITY_SLOTS = [
  'ccSecret',
  'ccToken',
  'exchangeSecret',
  'subjectToken',
  'exchangedToken',
  'clientOwn',
] as const
type IdentitySlot = (typeof IDENTITY_SLOTS)[number]
/** `issued`: the real authorization server; every other mode is a token endpoint that misbehaves. */
const ENDPOINT_MODES = [
  'issued',
  'token',
  'bad-expiry',
  'no-token',
  'html',
  'oauth-error',
  'refused',
  'token-type',
  'server-error',
  'huge',
  'down',
] as const
type EndpointMode = (typeof ENDPOINT_MODES)[number]
const GATEWAY = 'https://gateway.test.example'
const TEAM = 'team-static-token-0123456789'
const ROBOT = 'robot-static-token-0123456789'
const formEncode = (text: string) => encodeURIComponent(text).replaceAll('%20', '+')

/** `leaked`, and the forms a token request carries the secret in: percent- and form-encoded, the basic pair's base64. */
function leakedAnyForm(secret: string, text: string, clientIds: readonly string[]): string | undefined {
  const found = leaked(secret, text)
  if (found) return found
  let forms: string[] = []
  try {
    forms = [encodeURIComponent(secret), formEncode(secret)]
    for (const id of clientIds) {
      forms.push(Buffer.from(`${formEncode(id)}:${formEncode(secret)}`).toString('base64'))
      forms.push(Buffer.from(`${id}:${secret}`).toString('base64'))
    }
  } catch {
    // A lone surrogate has no percent form: nothing of it can be in the text that way.
  }
  return forms.find((form) => text.includes(form))
}

/** A token (a JWT here): whole, or its signature, the part that makes it a credential. */
function leakedToken(token: string, text: string): string | undefined {
  const signature = token.split('.').at(-1) ?? token
  return [token, signature].find((form) => form.length >= 16 && text.includes(form))
}

/** What a token request carried: the client secret (basic or form) and the subject token. */
function sentSecrets(received: Received): string[] {
  const form = new URLSearchParams(received.body.toString('utf8'))
  const found = [form.get('client_secret'), form.get('subject_token')]
  const basic = String(received.headers.authorization ?? '')
  if (basic.startsWith('Basic ')) {
    const pair = Buffer.from(basic.slice(6), 'base64').toString('utf8')
    const colon = pair.indexOf(':')
    try {
      found.push(decodeURIComponent(pair.slice(colon + 1).replaceAll('+', ' ')))
    } catch {
      found.push(pair.slice(colon + 1))
    }
  }
  return found.filter((one): one is string => typeof one === 'string' && one !== '')
}

test('generated secrets in every identity slot (issue 45): none reaches a log line, an error, a dry run, /catalog, the explorer or /metrics', async (t) => {
  const specs = await mkdtemp(join(tmpdir(), 'toolgate-leaks-id-'))
  const gwYaml = join(await mkdtemp(join(tmpdir(), 'toolgate-leaks-gw-')), 'gw.yaml')
  const callers = await startAuthServer(t)
  let secret = ''
  let mode: EndpointMode = 'token'
  let slots: readonly IdentitySlot[] = []
  const at = (slot: IdentitySlot) => (slots.includes(slot) ? secret : PLAIN)
  // The misbehaving token endpoint: what a careless one does is quote back what it was sent.
  const endpoint = await startUpstream(t, (received, res) => {
    const sent = sentSecrets(received)
    const exchange = received.body.toString('utf8').includes('subject_token=')
    const issued = exchange ? at('exchangedToken') : at('ccToken')
    const answer = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type })
      res.end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    switch (mode) {
      case 'token':
        return answer(200, { access_token: issued, token_type: 'Bearer', expires_in: 300 })
      case 'bad-expiry':
        return answer(200, { access_token: issued, token_type: 'Bearer', expires_in: -30 })
      case 'no-token':
        return answer(200, { token_type: 'Bearer', sent, note: `${issued} ${sent.join(' ')}` })
      case 'html':
        return answer(
          200,
          `<html>sent ${sent.join(' ')} ${JSON.stringify(sent)} got ${issued}</html>`,
          'text/html',
        )
      case 'oauth-error':
        return answer(400, { error: sent[0] ?? issued, error_description: `bad ${sent.join(' ')}` })
      case 'refused':
        return answer(400, { error: 'invalid_grant', error_description: `bad ${sent.join(' ')}`, sent })
      case 'token-type':
        return answer(200, { access_token: issued, token_type: sent[0] ?? issued, expires_in: 300 })
      case 'server-error':
        return answer(500, { error_description: `${sent.join(' ')} ${issued}` })
      default:
        return answer(200, { access_token: `${issued}${'x'.repeat(1024 * 1024)}`, expires_in: 300 })
    }
  })
  const down = await closedPort()
  // The API behind: verifies issued tokens (issued mode); otherwise refuses each token it is sent.
  const refusing = await startUpstream(t, (_received, res) => {
    res.writeHead(401, {
      'content-type': 'application/json',
      'www-authenticate': 'Bearer error="invalid_token"',
    })
    res.end('{"error":"invalid_token"}')
  })
  const reached = {
    refusedAtLoad: 0,
    served: 0,
    apiAnswered: 0,
    modes: new Set<string>(),
    codes: new Set<string>(),
  }

  await fc.assert(
    fc.asyncProperty(
      secretArb,
      fc.constantFrom(...ENDPOINT_MODES),
      fc.subarray([...IDENTITY_SLOTS], { minLength: 1 }),
      fc.constantFrom('client_secret_basic', 'client_secret_post'),
      async (generated, endpointMode, chosen, auth) => {
        secret = generated
        mode = endpointMode
        slots = chosen
        let tokenUrl = mode === 'down' ? `http://127.0.0.1:${down}/token` : `${endpoint.url}/token`
        let apiUrl = refusing.url
        let oidc: OidcServer | undefined
        let api: ProtectedApi | undefined
        if (mode === 'issued') {
          oidc = await startOidcServer(
            t,
            [
              { client_id: 'gateway', client_secret: at('ccSecret'), token_endpoint_auth_method: auth },
              { client_id: 'team', client_secret: at('clientOwn'), token_endpoint_auth_method: auth },
              { client_id: 'exchanger', client_secret: at('exchangeSecret') },
            ],
            callers,
          )
          api = await startProtectedApi(t, oidc)
          tokenUrl = oidc.tokenUrl
          apiUrl = api.url
        }
        const out: string[] = []
        try {
          await writeFile(join(specs, 'api.json'), oauthSpec(apiUrl, tokenUrl))
          await writeFile(join(specs, 'xapi.json'), oauthSpec(apiUrl, tokenUrl))
          const cc = (id: string, slot: IdentitySlot) =>
            `{ clientId: ${id}, clientSecret: { value: ${yamlQuote(at(slot))} }, tokenUrl: "${tokenUrl}", auth: ${auth} }`
          await writeFile(
            gwYaml,
            [
              `publicUrl: ${GATEWAY}`,
              'services:',
              '  api:',
              `    credentials: { oauth: ${cc('gateway', 'ccSecret')} }`,
              '  xapi:',
              `    tokenExchange: { tokenUrl: "${tokenUrl}", clientId: exchanger, clientSecret: { value: ${yamlQuote(at('exchangeSecret'))} }, audience: "${API_AUDIENCE}" }`,
              'clients:',
              `  - { id: ops, token: { value: ${OPERATOR} }, operator: true }`,
              `  - { id: robot, token: { value: ${ROBOT} } }`,
              `  - id: team`,
              `    token: { value: ${TEAM} }`,
              `    credentials: { api: { oauth: ${cc('team', 'clientOwn')} } }`,
              '  - id: agent',
              `    jwt: { issuer: "${callers.issuer}", jwksUrl: "${callers.jwksUrl}" }`,
            ].join('\n'),
          )
          let config: Awaited<ReturnType<typeof loadConfig>>
          try {
            config = await loadConfig(
              { SPECS_DIR: specs, TOOLGATE_CONFIG: gwYaml, SPECS_POLL_INTERVAL: '0' },
              (path) => readFile(path, 'utf8'),
            )
          } catch (err) {
            const message = `${(err as Error).message}\n${(err as Error).stack}`
            assert.match(message, /invalid configuration/)
            assert.equal(leakedAnyForm(secret, message, ['gateway', 'team', 'exchanger']), undefined, message)
            reached.refusedAtLoad++
            return
          }
          const stream = new Writable({
            write(chunk, _encoding, done) {
              out.push(chunk.toString())
              done()
            },
          })
          const app = await buildApp({
            config,
            reader: fsSourceReader,
            logger: { level: 'info', stream, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
          })
          try {
            // The caller's subject token: a JWT of the trusted issuer, its claims holding the secret when that slot is chosen.
            const subject = await callers.sign({
              sub: 'alice',
              client_id: 'agent',
              aud: GATEWAY,
              ...(slots.includes('subjectToken') ? { note: secret } : {}),
            })
            const as = (token: string) => ({ authorization: `Bearer ${token}` })
            const call = (url: string, token: string) =>
              app.inject({ method: 'POST', url, headers: as(token), payload: {} })
            const apiTool = (op: string) => `/tools/${encodeURIComponent(`api:${op}`)}`
            const xapiTool = (op: string) => `/tools/${encodeURIComponent(`xapi:${op}`)}`
            const responses = [
              await call(apiTool('listTickets'), OPERATOR),
              await call(apiTool('listTickets'), OPERATOR),
              await call(apiTool('createTicket'), OPERATOR),
              await call(`${apiTool('listTickets')}?dryRun=true`, OPERATOR),
              await call(apiTool('listTickets'), TEAM),
              await call(`${apiTool('listTickets')}?dryRun=true`, TEAM),
              await call(xapiTool('listTickets'), subject),
              await call(xapiTool('createTicket'), subject),
              await call(`${xapiTool('listTickets')}?dryRun=true`, subject),
              await call(xapiTool('listTickets'), ROBOT),
              await app.inject({ url: '/catalog', headers: as(OPERATOR) }),
              await app.inject({
                url: `/explorer/api/tools/${encodeURIComponent('api:listTickets')}`,
                headers: as(OPERATOR),
              }),
              await app.inject({
                url: `/explorer/api/tools/${encodeURIComponent('xapi:listTickets')}`,
                headers: as(OPERATOR),
              }),
              await app.inject({ url: '/metrics', headers: as(OPERATOR) }),
              await app.inject('/ready'),
            ]
            reached.served++
            reached.modes.add(mode)
            for (const response of responses) {
              if (!String(response.headers['content-type']).includes('json')) continue
              const code = (response.json() as { code?: unknown } | null)?.code
              if (typeof code === 'string') reached.codes.add(code)
            }
            const text = [...responses.map((r) => `${r.body} ${JSON.stringify(r.headers)}`), ...out].join(
              '\n',
            )
            const part = leakedAnyForm(secret, text, ['gateway', 'team', 'exchanger'])
            assert.equal(
              part,
              undefined,
              `the secret's ${JSON.stringify(part)} appeared in:\n${text.slice(0, 4000)}`,
            )
            // The tokens the real server issued, and the caller's own: never in the text either.
            const issuedTokens = (api?.calls ?? []).flatMap((seen) => (seen.token ? [seen.token] : []))
            reached.apiAnswered += (api?.calls ?? []).filter((seen) => seen.status === 200).length
            for (const token of [subject, ...issuedTokens]) {
              const found = leakedToken(token, text)
              assert.equal(found, undefined, `a token appeared in:\n${text.slice(0, 4000)}`)
            }
          } finally {
            await app.close()
          }
        } finally {
          await api?.close()
          await oidc?.close()
        }
      },
    ),
    {
      numRuns: 60,
      // Each endpoint mode once with the secret in every slot: every path below runs whatever is generated.
      examples: ENDPOINT_MODES.map((one, i) => [
        'S`tok`en-`pa55`word',
        one,
        [...IDENTITY_SLOTS],
        i % 2 === 0 ? 'client_secret_basic' : 'client_secret_post',
      ]),
    },
  )
  t.diagnostic(
    `refused at load ${reached.refusedAtLoad}, served ${reached.served}, issued calls answered 200: ${reached.apiAnswered} (token endpoint ${[...reached.modes].sort().join(', ')}; codes ${[...reached.codes].sort().join(', ')})`,
  )
  assert.deepEqual(
    [...reached.modes].sort(),
    [...ENDPOINT_MODES].sort(),
    'every token endpoint mode served calls',
  )
  assert.ok(reached.apiAnswered > 0, 'the real server issued tokens the API accepted')
  for (const code of [
    'TG_ERR_UPSTREAM_TOKEN_INVALID',
    'TG_ERR_UPSTREAM_TOKEN_UNREACHABLE',
    'TG_ERR_UPSTREAM_TOKEN_REFUSED',
    'TG_ERR_UPSTREAM_EXCHANGE_REFUSED',
    'TG_ERR_UPSTREAM_CALLER_TOKEN_MISSING',
  ])
    assert.ok(reached.codes.has(code), `a call ended in ${code}`)
})
