// Credentials never appear in responses, discovery documents or logs (SPEC §3 step 3, §5).
import assert from 'node:assert/strict'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { buildApp, REDACTED_PATHS } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { fromRoot } from '../helpers/paths.js'
import { startUpstream } from '../helpers/upstreams.js'

test('upstream credentials and caller tokens reach no log line, response or document, at trace level', async (t) => {
  const upstream = await startUpstream(t, (received, res) => {
    res.writeHead(received.target.startsWith('/tickets/tickets/T-404') ? 500 : 200, {
      'content-type': 'application/json',
    })
    res.end('{"echo":"no secrets here"}')
  })
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-secrets-'))
  await writeFile(join(dir, 'token'), 'file-bearer-SECRET-2\n')
  await writeFile(
    join(dir, 'toolgate.yaml'),
    `services:\n  tickets:\n    upstream: ${upstream.url}/tickets\n    credentials:\n      apiKeyAuth: { env: TICKETS_KEY }\n      bearerAuth: { file: ${join(dir, 'token')} }\n`,
  )
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  const config = await loadConfig(
    {
      SPECS_DIR: fromRoot('specs'),
      TOOLGATE_CONFIG: join(dir, 'toolgate.yaml'),
      TICKETS_KEY: 'env-key-SECRET-1',
    },
    (path) => readFile(path, 'utf8'),
  )
  const app = await buildApp({
    config,
    logger: { level: 'trace', stream, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
  })
  t.after(() => app.close())
  app.log.info({ config }, 'config dump')
  const responses = [
    await app.inject({
      method: 'POST',
      url: '/tools/tickets_get_ticket',
      headers: { authorization: 'Bearer caller-SECRET-3', cookie: 'sid=caller-SECRET-4' },
      payload: { ticketId: 'T-1001' },
    }),
    await app.inject({ method: 'POST', url: '/tools/tickets_get_stats', payload: {} }),
    await app.inject({ method: 'POST', url: '/tools/tickets_get_ticket', payload: { ticketId: 'T-404' } }),
    await app.inject({
      method: 'POST',
      url: '/tools/tickets_get_ticket',
      payload: { ticketId: 5, junk: true },
    }),
    await app.inject('/discovery'),
    await app.inject('/catalog'),
  ]
  assert.deepEqual(
    responses.map((r) => r.statusCode),
    [200, 200, 500, 400, 200, 200],
  )
  assert.equal(
    upstream.received[0]?.headers['x-api-key'],
    'env-key-SECRET-1',
    'the credential did reach the upstream',
  )
  assert.equal(upstream.received[1]?.headers.authorization, 'Bearer file-bearer-SECRET-2')
  const everything = lines.join('') + responses.map((r) => r.body + JSON.stringify(r.headers)).join('')
  assert.ok(lines.length > 10, 'trace logging produced lines')
  assert.doesNotMatch(everything, /SECRET/)
})
