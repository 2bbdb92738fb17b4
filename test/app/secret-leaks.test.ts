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
import { fromRoot } from '../helpers/paths.js'
import { remoteTool } from '../helpers/remote-tools.js'
import { closedPort, startUpstream } from '../helpers/upstreams.js'

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
