import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { startAuthServer } from '../helpers/auth-server.js'
import { fromRoot } from '../helpers/paths.js'
import { startServerProcess, stopServerProcess } from '../helpers/process.js'
import { tempDir } from '../helpers/specs-dir.js'

// jose is imported on first use (issue 20): a gateway whose clients all hold static tokens never
// loads it, whatever bearer tokens callers send. jose is ESM only, and no cache lists loaded ES
// modules, so the built server runs as a process under a preload whose module hook reports each
// jose module it resolves; the control, a gateway with a JWT client, must report jose.
const REPORT_MODULES = fromRoot('test', 'fixtures', 'preload', 'report-modules.mjs')
const joseLoaded = (logs: string) => /^module loaded: file:\S*\/node_modules\/jose\//m.test(logs)

async function gatewayWith(t: { after(fn: () => Promise<unknown>): void }, clients: string[]) {
  const file = join(await tempDir(t, 'toolgate-config-'), 'toolgate.yaml')
  await writeFile(file, ['publicUrl: https://gateway.test', 'clients:', ...clients, ''].join('\n'))
  const server = await startServerProcess({
    SPECS_DIR: '',
    EXAMPLE_UPSTREAM: 'off',
    TOOLGATE_CONFIG: file,
    NODE_OPTIONS: `--import=${REPORT_MODULES}`,
    REPORT_MODULES: '/node_modules/jose/',
  })
  t.after(() => stopServerProcess(server))
  // Read once the process has closed its output, not at its exit, so no report is still in the pipe.
  const closed = once(server.child, 'close')
  const logsOnceStopped = async () => {
    await stopServerProcess(server)
    await closed
    return server.logs()
  }
  return { url: server.url, logsOnceStopped }
}

test('jose is loaded only by a gateway with a JWT client, not by bearer tokens sent to one without', async (t) => {
  const auth = await startAuthServer(t)
  const jwt = await auth.sign({ client_id: 'agent', aud: 'https://gateway.test' })
  const statics = await gatewayWith(t, ['  - id: opal', '    token: { value: static-client-token-0001 }'])
  const tokens = [jwt, `${jwt.slice(0, -4)}AAAA`, 'eyJhbGciOiJub25lIn0.e30.', 'not-a-jwt-0000']
  for (const token of tokens) {
    const res = await fetch(`${statics.url}/discovery`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(res.status, 401, token)
    const body = (await res.json()) as { code: string; error: string }
    assert.equal(body.code, 'TG_ERR_ACCESS_TOKEN_INVALID')
    assert.match(body.error, /neither a configured static token nor a JWT of a configured client/)
  }
  const signedIn = await fetch(`${statics.url}/discovery`, {
    headers: { authorization: 'Bearer static-client-token-0001' },
  })
  assert.equal(signedIn.status, 200)
  await signedIn.body?.cancel()
  assert.equal(joseLoaded(await statics.logsOnceStopped()), false, 'a gateway with no JWT client loaded jose')

  const withJwt = await gatewayWith(t, [
    '  - id: agent',
    `    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}" }`,
  ])
  const verified = await fetch(`${withJwt.url}/discovery`, { headers: { authorization: `Bearer ${jwt}` } })
  assert.equal(verified.status, 200, await verified.text())
  assert.equal(
    joseLoaded(await withJwt.logsOnceStopped()),
    true,
    'the control: a gateway with a JWT client loads jose',
  )
})
