// Issue 41, class 10: open mode's operator routes (/catalog, /catalog/reloads, /explorer/api/*)
// must not be readable by every page the developer visits. No `Access-Control-Allow-Origin: *`
// there; a cross-origin request is refused unless its Origin is the gateway's own (publicUrl) or
// listed in allowedOrigins. Origins generated with fast-check.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { configFile, exampleApp, testApp } from '../helpers/app.js'

const OPERATOR_ROUTES = [
  '/catalog',
  '/catalog/reloads',
  '/explorer/api/overview',
  '/explorer/api/tools',
  '/explorer/api/tools/tickets_get_ticket',
  '/explorer/api/search?q=ticket',
  '/explorer/api/budgets',
]

/** An Origin a page the developer visits sends: any site, or a local dev server on another port. */
const pageOrigin = fc.oneof(
  fc.webUrl().map((url) => new URL(url).origin),
  fc
    .tuple(
      fc.constantFrom('http', 'https'),
      fc.constantFrom('localhost', '127.0.0.1', '[::1]'),
      fc.integer({ min: 1, max: 65_535 }).filter((port) => port !== 80 && port !== 443),
    )
    .map(([scheme, host, port]) => `${scheme}://${host}:${port}`),
  fc.constantFrom('null', 'file://', 'https://gateway.test.evil.example'),
  fc.string({ maxLength: 40 }).filter((s) => /^[\x21-\x7e]*$/.test(s)),
)

describe("open mode's operator routes", () => {
  test('no generated page origin gets Access-Control-Allow-Origin on an operator route', async (t) => {
    const app = await testApp(t)
    const ready = await app.inject('/ready')
    assert.equal(ready.json().access.mode, 'open')
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATOR_ROUTES), pageOrigin, async (url, origin) => {
        const res = await app.inject({ url, headers: { origin } })
        assert.equal(res.headers['access-control-allow-origin'], undefined, `${url} from ${origin}`)
        assert.equal(res.statusCode, 403, `${url} from ${origin}: ${res.body}`)
        assert.equal(res.json().code, 'TG_ERR_ACCESS_ORIGIN_REFUSED')
        assert.match(String(res.headers.vary), /Origin/)
      }),
      { numRuns: 300 },
    )
  })

  test('the explorer (same origin, or no Origin at all) still reads them; discovery keeps `*`', async (t) => {
    const app = await testApp(t)
    for (const url of OPERATOR_ROUTES) {
      const bare = await app.inject(url)
      assert.equal(bare.statusCode, 200, `${url}: ${bare.body.slice(0, 200)}`)
      assert.equal(bare.headers['access-control-allow-origin'], undefined, url)
      const sameOrigin = await app.inject({
        url,
        headers: { host: 'localhost:8080', origin: 'http://localhost:8080' },
      })
      assert.equal(sameOrigin.statusCode, 200, `${url} from its own page`)
      assert.equal(sameOrigin.headers['access-control-allow-origin'], undefined)
    }
    assert.equal((await app.inject('/explorer')).statusCode, 200)
    const discovery = await app.inject({ url: '/discovery', headers: { origin: 'https://any.example' } })
    assert.equal(
      discovery.headers['access-control-allow-origin'],
      '*',
      'discovery is for everyone (seed 000)',
    )
  })

  test('publicUrl and allowedOrigins are answered with their own origin, not `*`', async (t) => {
    const { app } = await exampleApp(
      t,
      'publicUrl: https://tools.example.com\nallowedOrigins: [https://studio.example.com]\n',
    )
    for (const origin of ['https://tools.example.com', 'https://studio.example.com']) {
      const res = await app.inject({ url: '/catalog', headers: { origin } })
      assert.equal(res.statusCode, 200, origin)
      assert.equal(res.headers['access-control-allow-origin'], origin)
      assert.match(String(res.headers.vary), /Origin/)
    }
    const other = await app.inject({ url: '/catalog', headers: { origin: 'http://localhost:3000' } })
    assert.equal(other.statusCode, 403, 'localhost on another port is any dev server: refused')
    const everyone = await testApp(t, { TOOLGATE_CONFIG: await configFile('allowedOrigins: ["*"]\n') })
    const opened = await everyone.inject({ url: '/catalog', headers: { origin: 'https://any.example' } })
    assert.equal(opened.statusCode, 200, 'allowedOrigins: ["*"] switches the check off, as it says')
    assert.equal(opened.headers['access-control-allow-origin'], '*')
  })

  test('a page whose domain is pointed at the gateway (DNS rebinding) cannot read them, Origin or not', async (t) => {
    const { app } = await exampleApp(t, 'publicUrl: https://tools.example.com\n')
    const port = fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined })
    const withPort = (host: string, p: number | undefined) => (p === undefined ? host : `${host}:${p}`)
    // A rebinding page's Host is its own domain: any DNS name but localhost's and the configured ones.
    const foreign = fc
      .domain()
      .filter((name) => !/(^|\.)localhost\.?$/i.test(name) && name.toLowerCase() !== 'tools.example.com')
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPERATOR_ROUTES),
        foreign,
        port,
        fc.boolean(),
        async (url, name, p, sendOrigin) => {
          const host = withPort(name, p)
          const headers: Record<string, string> = {
            host,
            ...(sendOrigin ? { origin: `http://${host}` } : {}),
          }
          const res = await app.inject({ url, headers })
          assert.equal(res.statusCode, 403, `${url} with Host ${host}: ${res.body.slice(0, 200)}`)
          assert.equal(res.json().code, 'TG_ERR_ACCESS_HOST_REFUSED')
          assert.equal(res.headers['access-control-allow-origin'], undefined)
        },
      ),
      { numRuns: 200 },
    )
    // Names no rebinding page can have: IP literals, localhost and its subdomains, publicUrl's host.
    const known = fc.oneof(
      fc.ipV4(),
      fc.ipV6().map((ip) => `[${ip}]`),
      fc.constantFrom('localhost', 'app.localhost', 'LOCALHOST', 'tools.example.com', 'Tools.Example.COM'),
    )
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATOR_ROUTES), known, port, async (url, name, p) => {
        const res = await app.inject({ url, headers: { host: withPort(name, p) } })
        assert.equal(res.statusCode, 200, `${url} with Host ${withPort(name, p)}: ${res.body.slice(0, 200)}`)
      }),
      { numRuns: 100 },
    )
  })
})
