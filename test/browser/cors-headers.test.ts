// Issue 42 item 4: what a browser-based MCP client reads of the gateway's answers, in real headless
// Chromium. A page served from another origin (one of allowedOrigins) fetches the gateway as such a
// client does: `fetch` hands a script only the CORS-safelisted headers and those the answer
// exposes, so a 401's WWW-Authenticate (where the OAuth flow starts) must be exposed, or it reads
// null and the client never finds the resource metadata.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { launchBrowser, openWatchedPage } from '../helpers/browser.js'
import { type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'

const TOKEN = 'browser-client-token-00042'

/** The headers a script reads from one answer, by name (null: not readable). */
type Read = Record<string, string | null>

let browser: Browser
let gateway: StartedServer
let page: Server
let pageOrigin: string
let dir: string

before(async () => {
  page = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>agent</title>')
  })
  page.listen(0, '127.0.0.1')
  await new Promise((resolve) => page.once('listening', resolve))
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`
  dir = await mkdtemp(join(tmpdir(), 'toolgate-cors-'))
  const config = join(dir, 'gw.yaml')
  await writeFile(
    config,
    [
      'publicUrl: http://127.0.0.1:3000',
      `allowedOrigins: ["${pageOrigin}"]`,
      'clients:',
      '  - id: browser-agent',
      `    token: { value: ${TOKEN} }`,
      '    tools: ["*"]',
      '    rateLimit: { max: 100, windowSeconds: 60 }',
      // An OAuth client too: the 401 then points at the resource metadata (RFC 9728). Never fetched here.
      '  - id: oauth-agent',
      '    jwt: { issuer: "http://127.0.0.1:9/idp", jwksUrl: "http://127.0.0.1:9/idp/jwks" }',
      '',
    ].join('\n'),
  )
  gateway = await startServerProcess({ SPECS_DIR: '', EXAMPLE_UPSTREAM: 'auto', TOOLGATE_CONFIG: config })
  browser = await launchBrowser()
})
after(async () => {
  await browser?.close()
  if (gateway) await stopServerProcess(gateway)
  page?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** Fetches `url` from the page on the other origin, as a browser client's script does. */
async function readFromPage(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  names: readonly string[],
): Promise<{ status: number; headers: Read }> {
  const watched = await openWatchedPage(browser)
  try {
    await watched.page.goto(pageOrigin)
    return await watched.page.evaluate(
      async ({ url, init, names }) => {
        const response = await fetch(url, init)
        const headers: Record<string, string | null> = {}
        for (const name of names) headers[name] = response.headers.get(name)
        return { status: response.status, headers }
      },
      { url, init, names },
    )
  } finally {
    await watched.page.close()
  }
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'browser-agent', version: '1.0.0' },
  },
})

describe('a browser client on another origin reads the headers it needs (issue 42)', () => {
  test('POST /mcp without a token: the 401 challenge with its resource metadata, and the version headers', async () => {
    const { status, headers } = await readFromPage(
      `${gateway.url}/mcp`,
      { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE },
      ['www-authenticate', 'api-version', 'catalog-version', 'x-request-id'],
    )
    assert.equal(status, 401)
    assert.match(
      String(headers['www-authenticate']),
      /^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:3000\/\.well-known\/oauth-protected-resource/,
    )
    assert.ok(headers['api-version'], 'API-Version')
    assert.ok(headers['catalog-version'], 'Catalog-Version')
    assert.ok(headers['x-request-id'], 'X-Request-Id')
  })

  test('with a token: the rate-limit budget and the version headers', async () => {
    const { status, headers } = await readFromPage(
      `${gateway.url}/mcp`,
      { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${TOKEN}` }, body: INITIALIZE },
      ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'api-version', 'catalog-version'],
    )
    assert.equal(status, 200)
    assert.equal(headers['ratelimit-limit'], '100')
    assert.match(String(headers['ratelimit-remaining']), /^\d+$/)
    assert.match(String(headers['ratelimit-reset']), /^\d+$/)
    assert.ok(headers['api-version'] && headers['catalog-version'])
  })

  test('GET /mcp: the 405 names its method in Allow', async () => {
    const { status, headers } = await readFromPage(
      `${gateway.url}/mcp`,
      { method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } },
      ['allow'],
    )
    assert.equal(status, 405)
    assert.equal(headers.allow, 'POST')
  })
})
