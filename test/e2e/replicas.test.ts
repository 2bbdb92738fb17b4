// Several built gateways sharing one Redis behind a real nginx (SPEC §5, §6): sessions cross
// replicas, and a replica leaving under load costs no request.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { startLoad } from '../helpers/load.js'
import { startNginx } from '../helpers/nginx.js'
import { type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { REDIS_URL, redisForTest } from '../helpers/redis.js'
import { serviceSpec, tempDir } from '../helpers/specs-dir.js'
import { startUpstream } from '../helpers/upstreams.js'

const DRAIN_DELAY_MS = 1_500

async function replicas(t: { after(fn: () => Promise<unknown>): void }, count: number) {
  const { prefix } = await redisForTest(t)
  const upstream = await startUpstream(t, async (_received, res) => {
    await sleep(5) // a little work, so calls overlap the shutdown
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"ok":true}')
  })
  const dir = await tempDir(t)
  await writeFile(join(dir, 'svc.yaml'), serviceSpec([1], upstream.url))
  const servers: StartedServer[] = []
  for (let i = 0; i < count; i++) {
    const server = await startServerProcess({
      SPECS_DIR: dir,
      EXAMPLE_UPSTREAM: 'off',
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      DRAIN_DELAY: String(DRAIN_DELAY_MS),
    })
    t.after(() => stopServerProcess(server))
    servers.push(server)
  }
  const hostPort = (server: StartedServer) => new URL(server.url).host
  const nginx = await startNginx(t, await tempDir(t, 'toolgate-nginx-'), servers.map(hostPort))
  return { servers, nginx, hostPort, upstream }
}

test('a session created through one replica is read through another, and through the load balancer', async (t) => {
  const { servers, nginx } = await replicas(t, 3)
  const created = await fetch(`${servers[0]!.url}/api/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  assert.equal(created.status, 201)
  const { code } = (await created.json()) as { code: string }
  const direct = await fetch(`${servers[1]!.url}/api/sessions/${code}/metadata`)
  assert.equal(direct.status, 200)
  const manifest = (await direct.json()) as { tools: { name: string }[] }
  assert.deepEqual(
    manifest.tools.map((tool) => tool.name),
    ['svc_op1'],
  )
  for (let i = 0; i < 6; i++) {
    const balanced = await fetch(`${nginx.url}/api/sessions/${code}/metadata`)
    assert.equal(balanced.status, 200, 'every replica behind nginx knows the session')
    await balanced.body?.cancel()
  }
})

test('an MCP 2026-07-28 conversation spread over three replicas by nginx, no affinity: every request succeeds', async (t) => {
  const { servers, nginx, upstream } = await replicas(t, 3)
  const client = new Client(
    { name: 'replicas-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', nginx.url)))
  t.after(() => client.close())
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28')
  for (let i = 0; i < 9; i++) {
    const { tools } = await client.listTools()
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['svc_op1'],
    )
    const result = await client.callTool({ name: 'svc_op1', arguments: {} })
    assert.equal(result.isError, false, JSON.stringify(result.content))
  }
  assert.equal(upstream.received.length, 9)
  // Round robin spread the conversation: every replica answered some of its tool calls.
  for (const server of servers)
    assert.match(server.logs(), /"via":"mcp"[^\n]*"msg":"tool call"|"msg":"tool call"[^\n]*"via":"mcp"/)
})

test('SIGTERM to one replica under load through nginx (endpoint removed as Kubernetes does): zero failed requests', async (t) => {
  const { servers, nginx, hostPort } = await replicas(t, 3)
  const load = startLoad(
    nginx.url,
    (n) => (n % 2 === 0 ? { path: '/tools/svc:op1', method: 'POST', body: '{}' } : { path: '/discovery' }),
    16,
    // Each request on its own connection to the balancer: `nginx -s reload` (our stand-in for
    // endpoint removal) closes the clients' idle keep-alive connections, a race Kubernetes'
    // endpoint removal does not have. nginx keeps its own connections to the gateways alive.
    { keepAlive: false },
  )
  await sleep(1_500)
  const leaving = servers[0]!
  const signalled = performance.now()
  // What Kubernetes does at once on termination: the endpoint leaves the balancer while the pod
  // gets SIGTERM; the replica serves on for DRAIN_DELAY, then drains and exits.
  await Promise.all([
    nginx.setUpstreams(servers.slice(1).map(hostPort)),
    Promise.resolve(leaving.child.kill('SIGTERM')),
  ])
  const [code] = (await once(leaving.child, 'exit')) as [number | null]
  const exitedAfter = performance.now() - signalled
  await sleep(1_000)
  const { responses, failures } = await load.stop()

  assert.equal(code, 0)
  assert.ok(
    exitedAfter >= DRAIN_DELAY_MS,
    `the replica served through its drain delay (${Math.round(exitedAfter)} ms)`,
  )
  assert.deepEqual(failures, [])
  const failed = responses.filter((response) => response.status < 200 || response.status > 299)
  assert.deepEqual(
    failed.map((response) => `${response.path} ${response.status} ${response.body.slice(0, 120)}`),
    [],
    await nginx.errorLog(),
  )
  const calls = responses.filter((response) => response.path.startsWith('/tools/')).length
  assert.ok(calls >= 200, `tool calls ran all along (${calls} of ${responses.length} requests)`)
  t.diagnostic(
    `${responses.length} requests (${calls} tool calls) through nginx, 0 failed; replica exited after ${Math.round(exitedAfter)} ms`,
  )
})
