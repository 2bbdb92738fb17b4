// Issue 14, callers' classes 1–3: hostile argument values in every location and every encoder,
// generated with fast-check against a real upstream that counts what reaches it. Each value is
// either refused with a 400 naming the argument (nothing sent, the breaker untouched) or sent
// intact, with the gateway's credentials present exactly once and nothing injected beside them.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { Secret } from '../../src/config/secrets.js'
import type { ToolOutcome } from '../../src/executor/index.js'
import { executorFor } from '../helpers/executor.js'
import { catalogOf } from '../helpers/memory-catalog.js'
import { PROBE_SPEC } from '../helpers/probe-spec.js'
import { type Received, startUpstream } from '../helpers/upstreams.js'

// A failing run says why, not only which value.
fc.configureGlobal({ includeErrorInReport: true })

const SECRET = 'gateway-secret-42'
const secret = { kind: 'secret' as const, secret: new Secret(SECRET) }

/** Pieces that break encoders, headers, cookies and queries, mixed with ordinary text. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '\r',
        '\n',
        '\r\n',
        '\0',
        '\x01',
        '\x1f',
        '\x7f',
        '\u2028',
        '\u2603',
        'é',
        '\ud800',
        '\udfff',
        '\ud83d\ude00',
        ';',
        ',',
        '=',
        '&',
        '#',
        '?',
        '/',
        '%',
        '%0d%0a',
        '+',
        ' ',
        '"',
        '\\',
        '(',
        '..',
        'sid=evil',
        'api_key=evil',
        'Cookie: x',
        '\r\nX-Injected: 1',
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''))

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const PRINTABLE_ASCII = /^[\t\x20-\x7e]*$/

/** Where a generated string goes, how the upstream shows it, and whether it must be refused. */
interface Location {
  readonly name: string
  readonly args: (s: string) => Record<string, unknown>
  readonly pointer: string
  readonly refused: (s: string) => boolean
  readonly arrived: (r: Received, s: string) => void
}

const loneSurrogate = (s: string) => !s.isWellFormed()
const query = (r: Received) => new URLSearchParams(r.target.split('?')[1] ?? '')
const cookies = (r: Received) =>
  String(r.headers.cookie ?? '')
    .split('; ')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=')
      return [decodeURIComponent(pair.slice(0, at)), decodeURIComponent(pair.slice(at + 1))] as const
    })
const cookieValues = (r: Received, name: string) =>
  cookies(r)
    .filter(([n]) => n === name)
    .map(([, v]) => v)

const LOCATIONS: Location[] = [
  {
    name: 'path',
    args: (s) => ({ id: s }),
    pointer: '/id',
    refused: (s) => loneSurrogate(s) || s === '',
    arrived: (r, s) => assert.equal(decodeURIComponent(r.target.split('?')[0]!.slice('/items/'.length)), s),
  },
  {
    name: 'query value',
    args: (s) => ({ id: 'x', q: s }),
    pointer: '/q',
    refused: loneSurrogate,
    arrived: (r, s) => assert.deepEqual(query(r).getAll('q'), [s]),
  },
  {
    // The catalog leaves a parameter of the key's name out of the tool: no argument at all.
    name: 'query argument named like the credential',
    args: (s) => ({ id: 'x', api_key: s }),
    pointer: '/api_key',
    refused: () => true,
    arrived: () => assert.fail('an argument named like the credential was sent'),
  },
  {
    name: 'exploded query object key',
    args: (s) => ({ id: 'x', filter: { [s]: 'v' } }),
    pointer: '/filter',
    // A key under the credential's name is refused, never silently dropped (issue 42 class 7).
    refused: (s) => loneSurrogate(s) || s.toLowerCase() === 'api_key',
    arrived: (r, s) => assert.deepEqual(query(r).getAll(s), ['v']),
  },
  {
    name: 'exploded query object value',
    args: (s) => ({ id: 'x', filter: { f: s } }),
    pointer: '/filter',
    refused: loneSurrogate,
    arrived: (r, s) => assert.deepEqual(query(r).getAll('f'), [s]),
  },
  {
    name: 'deepObject key and value',
    args: (s) => ({ id: 'x', deep: { [s]: { inner: s } } }),
    pointer: '/deep',
    refused: loneSurrogate,
    arrived: (r, s) => assert.deepEqual(query(r).getAll(`deep[${s}][inner]`), [s]),
  },
  {
    name: 'header value',
    args: (s) => ({ id: 'x', 'X-Trace': s }),
    pointer: '/X-Trace',
    refused: (s) => !PRINTABLE_ASCII.test(s),
    arrived: (r, s) => assert.equal(r.headers['x-trace'], s.trim()),
  },
  {
    name: 'header object key and value',
    args: (s) => ({ id: 'x', 'X-Meta': { [s]: s } }),
    pointer: '/X-Meta',
    refused: (s) => !PRINTABLE_ASCII.test(s),
    arrived: (r, s) => assert.equal(r.headers['x-meta'], `${s}=${s}`.trim()),
  },
  {
    name: 'cookie value',
    args: (s) => ({ id: 'x', pref: s }),
    pointer: '/pref',
    refused: loneSurrogate,
    arrived: (r, s) => assert.deepEqual(cookieValues(r, 'pref'), [s]),
  },
  {
    // The catalog leaves a parameter of the key's name out of the tool: no argument at all.
    name: 'cookie argument named like the credential',
    args: (s) => ({ id: 'x', sid: s }),
    pointer: '/sid',
    refused: () => true,
    arrived: () => assert.fail('an argument named like the credential was sent'),
  },
  {
    name: 'exploded cookie object key',
    args: (s) => ({ id: 'x', jar: { [s]: 'v' } }),
    pointer: '/jar',
    refused: (s) => loneSurrogate(s) || s.toLowerCase() === 'sid',
    arrived: (r, s) => {
      if (s !== '') assert.deepEqual(cookieValues(r, s), ['v'])
    },
  },
  {
    name: 'exploded cookie object value',
    args: (s) => ({ id: 'x', jar: { c: s } }),
    pointer: '/jar',
    refused: loneSurrogate,
    arrived: (r, s) => assert.deepEqual(cookieValues(r, 'c'), [s]),
  },
  {
    name: 'JSON body value and key',
    args: (s) => ({ id: 'x', note: s, data: { [s]: [s] } }),
    pointer: '/',
    refused: loneSurrogate,
    arrived: (r, s) => assert.deepEqual(JSON.parse(r.body.toString('utf8')), { note: s, data: { [s]: [s] } }),
  },
]

/** The gateway's credentials arrived exactly once each, with their values, whatever the arguments said. */
function assertCredentialsIntact(r: Received) {
  assert.deepEqual(query(r).getAll('api_key'), [SECRET])
  assert.deepEqual(cookieValues(r, 'sid'), [SECRET])
  assert.equal(r.headers['x-api-key'], SECRET)
  for (const pair of String(r.headers.cookie).split('; '))
    assert.match(pair.slice(0, pair.indexOf('=')), TOKEN)
  const expected = new Set([
    'host',
    'connection',
    'content-length',
    'content-type',
    'accept',
    'user-agent',
    'cookie',
    'x-api-key',
    'x-trace',
    'x-meta',
  ])
  for (const name of Object.keys(r.headers)) assert.ok(expected.has(name), `unexpected header ${name}`)
}

async function setup(t: { after(fn: () => Promise<unknown>): void }) {
  const upstream = await startUpstream(t)
  const catalog = await catalogOf({ 'probe.yaml': PROBE_SPEC })
  const { call, client } = executorFor(t, catalog, {
    services: { probe: { upstream: upstream.url } },
    credentials: { probe: { keyQuery: secret, keyCookie: secret, keyHeader: secret } },
  })
  return { upstream, call, client }
}

function assertRefusedNaming(outcome: ToolOutcome, pointer: string) {
  assert.equal(outcome.kind, 'refusal')
  assert.equal(outcome.status, 400)
  const { code, violations } = outcome.body as unknown as { code: string; violations: { path: string }[] }
  assert.equal(code, 'TG_ERR_TOOL_ARGUMENTS_INVALID')
  assert.ok(
    violations.some((v) => v.path.startsWith(pointer)),
    `no violation under ${pointer}: ${JSON.stringify(violations)}`,
  )
}

describe('hostile argument values, every location (issue 14 classes 1–3)', () => {
  test('refused with a 400 naming the argument and nothing sent, or sent intact beside intact credentials', async (t) => {
    const { upstream, call, client } = await setup(t)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LOCATIONS), hostileText, async (location, s) => {
        const before = upstream.received.length
        const outcome = await call('probe:probe', location.args(s))
        assert.ok(outcome.status < 500, `${location.name}: ${outcome.status} ${JSON.stringify(outcome)}`)
        if (location.refused(s)) {
          assertRefusedNaming(outcome, location.pointer)
          assert.equal(upstream.received.length, before, 'an invalid call reached the upstream')
        } else {
          assert.equal(outcome.kind, 'answer', `${location.name}: ${JSON.stringify(outcome)}`)
          assert.equal(upstream.received.length, before + 1)
          const received = upstream.received.at(-1)!
          assertCredentialsIntact(received)
          location.arrived(received, s)
        }
        assert.ok(Object.values(client.breaker.states()).every((state) => state === 'closed'))
      }),
      { numRuns: 600 },
    )
  })

  test('form-urlencoded bodies: keys and values of every kind, the credential still once in the query', async (t) => {
    const { upstream, call } = await setup(t)
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, async (key, value) => {
        const before = upstream.received.length
        const outcome = await call('probe:form', { text: value, nested: { [key]: [value] } })
        if (loneSurrogate(key) || loneSurrogate(value)) {
          assertRefusedNaming(outcome, '/')
          assert.equal(upstream.received.length, before)
          return
        }
        assert.equal(outcome.status, 200)
        const received = upstream.received.at(-1)!
        assert.deepEqual(query(received).getAll('api_key'), [SECRET])
        const form = new URLSearchParams(received.body.toString('utf8'))
        assert.deepEqual(form.getAll('text'), [value])
        assert.deepEqual(form.getAll(`nested[${key}][0]`), [value])
      }),
      { numRuns: 200 },
    )
  })

  test('numbers that are not finite are refused wherever they are, never sent as null', async (t) => {
    const { upstream, call } = await setup(t)
    const infinite = fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN)
    await fc.assert(
      fc.asyncProperty(
        infinite,
        fc.constantFrom(
          (n: number) => [{ id: 'x', count: n }, '/count'] as const,
          (n: number) => [{ id: 'x', data: { a: [1, n] } }, '/data/a/1'] as const,
          (n: number) => [{ id: 'x', deep: { n } }, '/deep/n'] as const,
        ),
        async (n, place) => {
          const [args, pointer] = place(n)
          const before = upstream.received.length
          const outcome = await call('probe:probe', args)
          assertRefusedNaming(outcome, pointer)
          assert.ok(
            (outcome.body as unknown as { violations: { message: string }[] }).violations.some((v) =>
              /finite/.test(v.message),
            ),
          )
          assert.equal(upstream.received.length, before)
        },
      ),
    )
    // The largest finite numbers are still numbers.
    const outcome = await call('probe:probe', { id: 'x', count: 1e300 })
    assert.equal(outcome.status, 200)
    assert.deepEqual(query(upstream.received.at(-1)!).getAll('count'), ['1e+300'])
  })

  test('nesting is bounded at the edge: deeper than the limit is a 400 naming where, never a stack overflow', async (t) => {
    const { upstream, call } = await setup(t)
    const nest = (depth: number, leaf: unknown, asObject: boolean) => {
      let value = leaf
      for (let i = 0; i < depth; i++) value = asObject ? { k: value } : [value]
      return value
    }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 80, max: 50_000 })),
        fc.boolean(),
        fc.constantFrom('data', 'deep', 'filter', 'jar', 'X-Meta'),
        async (depth, asObject, argument) => {
          const before = upstream.received.length
          const outcome = await call('probe:probe', { id: 'x', [argument]: nest(depth, 'leaf', asObject) })
          assert.ok(outcome.status < 500, JSON.stringify(outcome).slice(0, 300))
          // The arguments object is level 0: `argument` may hold 63 more levels.
          if (depth >= 64) {
            assertRefusedNaming(outcome, `/${argument}`)
            assert.match(JSON.stringify(outcome.body), /nests deeper than 64 levels/)
            assert.equal(upstream.received.length, before)
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  test("a forwarded Opal token HTTP cannot carry is refused, not sent (and not the upstream's failure)", async (t) => {
    const upstream = await startUpstream(t)
    const catalog = await catalogOf({ 'probe.yaml': PROBE_SPEC })
    const { call, client } = executorFor(t, catalog, {
      services: { probe: { upstream: upstream.url, forwardAccessToken: true } },
      credentials: { probe: { keyQuery: secret, keyCookie: secret, keyHeader: secret } },
    })
    await fc.assert(
      fc.asyncProperty(hostileText, async (token) => {
        fc.pre(token !== '')
        const before = upstream.received.length
        const outcome = await call('probe:probe', { id: 'x' }, { accessToken: token })
        if (/^[\x21-\x7e]+$/.test(token)) {
          assert.equal(outcome.status, 200)
          assert.equal(upstream.received.at(-1)!.headers.authorization, `Bearer ${token}`)
        } else {
          assertRefusedNaming(outcome, 'auth.credentials.access_token')
          assert.equal(upstream.received.length, before)
        }
      }),
      { numRuns: 200 },
    )
    assert.ok(Object.values(client.breaker.states()).every((state) => state === 'closed'))
  })
})
