// Access control as users run it (issue 13): the built CLI and server, Opal's path, replicas on Redis.
import assert from 'node:assert/strict'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { startAuthServer } from '../helpers/auth-server.js'
import { startNginx } from '../helpers/nginx.js'
import { runCli, type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { REDIS_URL, redisForTest } from '../helpers/redis.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

test('toolgate token new: a token, then a clients: file that admits it, holding only its SHA-256', async (t) => {
  const made = await runCli(['token', 'new', '--client', 'opal'])
  assert.equal(made.code, 0, made.stderr)
  const [token, blank, ...yaml] = made.stdout.split('\n')
  assert.match(token!, /^tg_[A-Za-z0-9_-]{43}$/)
  assert.equal(blank, '')
  assert.equal(yaml[0], 'clients:')
  assert.ok(!made.stdout.slice(token!.length).includes(token!), 'the configuration does not hold the token')
  assert.match(made.stderr, /shown once/)
  const file = join(await tempDir(t, 'toolgate-token-'), 'toolgate.yaml')
  await writeFile(file, yaml.join('\n'))

  const server = await startServerProcess({ SPECS_DIR: '', NODE_ENV: 'production', TOOLGATE_CONFIG: file })
  t.after(() => stopServerProcess(server))
  assert.match(server.logs(), /"clients":\["opal"\].*access: 1 clients/)

  // Opal's path: discovery anonymously, then the advertised endpoint with the registry's bearer token.
  const discovery = await fetch(`${server.url}/discovery`)
  assert.equal(discovery.status, 200)
  const { functions } = (await discovery.json()) as { functions: { name: string; endpoint: string }[] }
  const endpoint = functions.find((f) => f.name === 'tickets_get_ticket')!.endpoint
  const opalCall = (headers: Record<string, string>) =>
    fetch(new URL(endpoint, `${server.url}/discovery`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        parameters: { ticketId: 'T-1001' },
        environment: { execution_mode: 'headless' },
        chat_metadata: { thread_id: 'e2e' },
      }),
    })
  const called = await opalCall({ authorization: `Bearer ${token}` })
  assert.equal(called.status, 200)
  assert.equal(((await called.json()) as { id: string }).id, 'T-1001')
  const refused = await opalCall({})
  assert.equal(refused.status, 401)
  assert.equal(((await refused.json()) as { code: string }).code, 'TG_ERR_ACCESS_TOKEN_MISSING')

  const badId = await runCli(['token', 'new', '--client', 'has space'])
  assert.equal(badId.code, 2)
  assert.match(badId.stderr, /a client id is 1 to 64 letters/)
})

test('with no clients, development says loudly that it is open, production that it is closed', async (t) => {
  const open = await startServerProcess({ SPECS_DIR: '', EXAMPLE_UPSTREAM: 'off' })
  t.after(() => stopServerProcess(open))
  assert.match(open.logs(), /"level":40.*access is OPEN/)
  const closed = await startServerProcess({ SPECS_DIR: '', EXAMPLE_UPSTREAM: 'off', NODE_ENV: 'production' })
  t.after(() => stopServerProcess(closed))
  assert.match(closed.logs(), /"level":40.*access is CLOSED/)
})

test('three replicas on one Redis behind nginx: a client budget holds across them, a token is valid on each', async (t) => {
  const { prefix } = await redisForTest(t)
  const auth = await startAuthServer(t)
  const upstream = await startUpstream(t)
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1], upstream.url))
  const budget = 20
  const file = join(await tempDir(t, 'toolgate-config-'), 'toolgate.yaml')
  await writeFile(
    file,
    [
      'publicUrl: https://gateway.test',
      'clients:',
      '  - id: metered',
      '    token: { value: metered-client-token-01 }',
      `    rateLimit: { max: ${budget}, windowSeconds: 300 }`,
      '  - id: agent',
      `    jwt: { issuer: "${auth.issuer}", jwksUrl: "${auth.jwksUrl}" }`,
      '',
    ].join('\n'),
  )
  const servers: StartedServer[] = []
  for (let i = 0; i < 3; i++) {
    const server = await startServerProcess({
      SPECS_DIR: dir,
      EXAMPLE_UPSTREAM: 'off',
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      TOOLGATE_CONFIG: file,
    })
    t.after(() => stopServerProcess(server))
    servers.push(server)
  }
  const nginx = await startNginx(
    t,
    await tempDir(t, 'toolgate-nginx-'),
    servers.map((server) => new URL(server.url).host),
  )
  const call = (base: string, token: string) =>
    fetch(`${base}/tools/svc_op1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    })

  const statuses: number[] = []
  for (let i = 0; i < budget * 2; i++) {
    const res = await call(nginx.url, 'metered-client-token-01')
    statuses.push(res.status)
    await res.body?.cancel()
  }
  const admitted = statuses.filter((status) => status === 200).length
  assert.ok(
    Math.abs(admitted - budget) <= 1,
    `${admitted} of ${statuses.length} admitted for a budget of ${budget}`,
  )
  assert.deepEqual(new Set(statuses), new Set([200, 429]))
  assert.equal(statuses.at(-1), 429)
  t.diagnostic(
    `budget ${budget} across 3 replicas: ${admitted} admitted, ${statuses.length - admitted} refused with 429`,
  )

  const jwt = await auth.sign({ client_id: 'agent', aud: 'https://gateway.test' })
  for (const server of servers) {
    const res = await call(server.url, jwt)
    assert.equal(res.status, 200, `${server.url}: ${await res.text()}`)
    const limited = await call(server.url, 'metered-client-token-01')
    assert.equal(limited.status, 429, 'the same budget, exhausted, on every replica')
    await limited.body?.cancel()
  }
})
