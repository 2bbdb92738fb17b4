// Remote tool sources in the running gateway: every surface lists them, calls reach them with the token.
import assert from 'node:assert/strict'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/load-config.js'
import { testApp } from '../helpers/app.js'
import { fromRoot } from '../helpers/paths.js'
import { closedPort, startUpstream } from '../helpers/upstreams.js'

const json = (
  res: import('node:http').ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(body === undefined ? '' : JSON.stringify(body))
}

async function remotes(t: { after(fn: () => Promise<unknown>): void }) {
  const cms = await startUpstream(t, (received, res) => {
    const url = new URL(received.target, 'http://x')
    if (url.pathname === '/mcp/tools/list') {
      return json(res, 200, {
        tools: [
          {
            name: 'node.create',
            description: 'Create a node',
            inputSchema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
            endpoint: '/api/nodes',
            method: 'POST',
            requiresAuth: true,
          },
          {
            name: 'search',
            description: 'Search content',
            inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
            endpoint: '/api/search',
            method: 'GET',
            requiresAuth: false,
          },
        ],
      })
    }
    return json(res, 200, {
      method: received.method,
      path: url.pathname,
      query: url.search,
      body: received.body.toString(),
    })
  })
  const drupal = await startUpstream(t, (received, res) => {
    const url = new URL(received.target, 'http://x')
    if (url.pathname === '/mcp/tools/list') {
      return json(res, 200, {
        tools: [
          {
            name: 'content.read',
            description: 'Read content',
            inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
            annotations: { auth: { level: 'required' } },
          },
          {
            name: 'cache.rebuild',
            description: 'Rebuild caches',
            inputSchema: { type: 'object', properties: [] },
            annotations: { auth: { scopes: ['admin'] } },
          },
          { name: 'gone.method', description: 'Vanished', inputSchema: { type: 'object', properties: [] } },
        ],
        nextCursor: null,
      })
    }
    const call = JSON.parse(received.body.toString() || '{}')
    if (url.pathname === '/mcp/tools/cache.rebuild') {
      return json(res, 403, undefined, {
        'www-authenticate': 'Bearer realm="MCP Tools", error="insufficient_scope", scope="admin"',
      })
    }
    if (url.pathname === '/mcp/tools/gone.method')
      return json(res, 404, {
        jsonrpc: '2.0',
        error: { code: -32601, message: 'Method not found' },
        id: null,
      })
    return json(res, 200, {
      jsonrpc: '2.0',
      result: { echo: call, auth: received.headers.authorization },
      id: call.id,
    })
  })
  return { cms, drupal }
}

async function configWith(yaml: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'toolgate-remote-')), 'gw.yaml')
  await writeFile(file, yaml)
  return file
}

describe('remote tool sources (seed 004) in the gateway', () => {
  test('their tools appear in /discovery, /openai.json and MCP; calls reach <base><endpoint> with the token', async (t) => {
    const { cms, drupal } = await remotes(t)
    const file = await configWith(
      [
        'remoteSources:',
        `  - { id: cms, baseUrl: "${cms.url}", token: { value: cms-token } }`,
        `  - { id: drupal, baseUrl: "${drupal.url}", format: jsonrpc-mcp, token: { value: drupal-token } }`,
      ].join('\n'),
    )
    const app = await testApp(t, { TOOLGATE_CONFIG: file })
    const names = (await app.inject('/discovery')).json().functions.map((f: { name: string }) => f.name)
    for (const name of ['cms_node_create', 'cms_search', 'drupal_content_read', 'drupal_cache_rebuild'])
      assert.ok(names.includes(name), name)
    const openai = (await app.inject('/openai.json'))
      .json()
      .map((f: { function: { name: string } }) => f.function.name)
    assert.ok(openai.includes('drupal_content_read'))
    const mcp = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    })
    assert.ok(mcp.json().result.tools.some((tool: { name: string }) => tool.name === 'cms_node_create'))

    const created = await app.inject({
      method: 'POST',
      url: '/tools/cms_node_create',
      payload: { title: 'Hello' },
    })
    assert.equal(created.statusCode, 200)
    assert.deepEqual(created.json(), {
      method: 'POST',
      path: '/api/nodes',
      query: '',
      body: '{"title":"Hello"}',
    })
    const call = cms.received.find((r) => r.target === '/api/nodes')!
    assert.equal(call.headers.authorization, 'Bearer cms-token')
    const searched = await app.inject({ method: 'POST', url: '/tools/cms_search', payload: { q: 'a b' } })
    assert.deepEqual([searched.json().method, searched.json().query], ['GET', '?q=a%20b'])
    assert.equal(
      cms.received.find((r) => r.target.startsWith('/api/search'))!.headers.authorization,
      undefined,
      'no token where requiresAuth is false',
    )

    const read = await app.inject({ method: 'POST', url: '/tools/drupal_content_read', payload: { id: 7 } })
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json().echo.params, { id: 7 })
    assert.equal(read.json().echo.method, 'content.read')
    assert.equal(read.json().echo.jsonrpc, '2.0')
    assert.equal(read.json().auth, 'Bearer drupal-token')
    const refused = await app.inject({ method: 'POST', url: '/tools/drupal_cache_rebuild', payload: {} })
    assert.equal(refused.statusCode, 403)
    assert.equal(refused.json().code, 'TG_ERR_REMOTE_AUTH_FAILED')
    assert.match(refused.json().error, /insufficient_scope \(needs scope admin\)/)
    const gone = await app.inject({ method: 'POST', url: '/tools/drupal_gone_method', payload: {} })
    assert.deepEqual([gone.statusCode, gone.json().code], [404, 'TG_ERR_REMOTE_METHOD_NOT_FOUND'])
  })

  test("a remote source that echoes its token into a challenge, an error or its data never makes it the caller's text (generated tokens)", async (t) => {
    // What the source answers a call: its token (from the request) quoted back in every field a refusal relays.
    const echoing = await startUpstream(t, (received, res) => {
      const url = new URL(received.target, 'http://x')
      if (url.pathname === '/mcp/tools/list')
        return json(res, 200, {
          tools: ['denied', 'failing'].map((name) => ({
            name,
            description: name,
            inputSchema: { type: 'object', properties: {} },
            annotations: { auth: { level: 'required' } },
          })),
        })
      const sent = String(received.headers.authorization ?? '')
      const token = sent.replace(/^Bearer /, '')
      if (url.pathname === '/mcp/tools/denied')
        return json(res, 401, undefined, {
          'www-authenticate': `Bearer error="invalid_token", error_description="token ${token} expired", scope="${token}"`,
        })
      return json(res, 200, {
        jsonrpc: '2.0',
        error: { code: -32000, message: `cannot use ${sent}`, data: { token, sent, nested: [token] } },
        id: JSON.parse(received.body.toString() || '{}').id ?? null,
      })
    })
    // Tokens a header can carry (issue 41 class 3 checks them at load); no quote, which the challenge syntax ends on.
    const token = fc
      .stringMatching(/^[\x21\x23-\x7e]{16,64}$/)
      .filter((value) => !value.includes('"') && !value.includes('\\'))
    await fc.assert(
      fc.asyncProperty(token, async (secret) => {
        const file = await configWith(
          `remoteSources:\n  - { id: src, baseUrl: "${echoing.url}", format: jsonrpc-mcp, token: { value: ${JSON.stringify(secret)} } }\n`,
        )
        const app = await testApp(t, { TOOLGATE_CONFIG: file })
        for (const tool of ['src_denied', 'src_failing']) {
          const res = await app.inject({ method: 'POST', url: `/tools/${tool}`, payload: {} })
          assert.ok(res.statusCode >= 400, `${tool}: ${res.statusCode}`)
          assert.ok(!res.body.includes(secret), `${tool} quotes the token: ${res.body.slice(0, 300)}`)
          assert.ok(
            !res.body.includes(JSON.stringify(secret).slice(1, -1)),
            `${tool} quotes the token escaped`,
          )
          assert.match(res.body, /\[redacted\]/, `${tool}: the echo is still shown, redacted`)
        }
        await app.close()
      }),
      { numRuns: 15 },
    )
  })

  test('a required source that fails stops the start with its message; an optional one is reported and the rest serve', async (t) => {
    const port = await closedPort()
    const required = await configWith(
      `remoteSources:\n  - { id: cms, baseUrl: "http://127.0.0.1:${port}" }\n`,
    )
    const config = await loadConfig(
      { SPECS_DIR: fromRoot('specs'), LOG_LEVEL: 'silent', TOOLGATE_CONFIG: required },
      (p) => readFile(p, 'utf8'),
    )
    await assert.rejects(
      buildApp({ config }),
      /Tool discovery failed for remote source cms .*cannot reach .*ECONNREFUSED/,
    )

    const optional = await configWith(
      `remoteSources:\n  - { id: cms, baseUrl: "http://127.0.0.1:${port}", required: false }\n`,
    )
    const app = await testApp(t, { TOOLGATE_CONFIG: optional })
    const catalog = (await app.inject('/catalog')).json()
    assert.deepEqual(
      catalog.sources.find((s: { sourceId: string }) => s.sourceId === 'remote:cms'),
      {
        sourceId: 'remote:cms',
        kind: 'remote',
        status: 'failed',
        tools: 0,
        errors: 1,
        warnings: 0,
      },
    )
    assert.match(
      catalog.problems.find((p: { file: string }) => p.file === 'remote:cms').message,
      /ECONNREFUSED/,
    )
    assert.equal(catalog.services.length, 3, 'the shipped specs (and their workflows) still serve')
    const ready = await app.inject('/ready')
    assert.equal(ready.statusCode, 200)
    assert.deepEqual(ready.json().remoteSources, [{ id: 'cms', status: 'failed', tools: 0 }])
  })
})
