// Issue 19: the catalog explorer in real headless Chromium, against the built server started as a
// process — the shipped specs with the example upstream, the real-world corpus (3,800+ tools), a
// specs directory with broken files and a recording upstream, production with an operator's token —
// and axe-core in the same browser. Every test asserts no uncaught error and no CSP violation, and
// saves screenshots under test-output/explorer/.
import assert from 'node:assert/strict'
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import {
  assertPageClean,
  launchBrowser,
  openWatchedPage,
  screenshot,
  type WatchedPage,
} from '../helpers/browser.js'
import { REAL_WORLD_DIR, realWorldFiles } from '../helpers/corpus.js'
import { type StartedServer, startServerProcess, stopServerProcess } from '../helpers/process.js'
import { startUpstream, type TestUpstream } from '../helpers/upstreams.js'

/**
 * The page's globals, as the functions Playwright runs in the browser use them: this project compiles
 * without the DOM lib (it would retype Node's fetch and Buffer everywhere).
 */
interface PageElement {
  readonly id: string
  readonly tagName: string
  readonly textContent: string | null
  readonly nextElementSibling: PageElement | null
  readonly disabled?: boolean
  getAttribute(name: string): string | null
}
declare const document: {
  readonly activeElement: PageElement | null
  readonly body: PageElement
  querySelector(selector: string): PageElement | null
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>
}
declare const window: unknown
declare const sessionStorage: {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
}

/** Bound on every wait in the page: a view that never comes fails the test, not the run. */
const WAIT_MS = 20_000
/** The browser logs each 4xx answer of a fetch; a test that expects one allows exactly that line. */
const FAILED_LOAD = /^Failed to load resource: the server responded with a status of 4\d\d/

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

let browser: Browser
const closers: (() => Promise<unknown>)[] = []
/** What helpers taking a test context need: cleanups run once, after every test of the file. */
const file = { after: (fn: () => Promise<unknown>) => void closers.push(fn) }

before(async () => {
  browser = await launchBrowser()
})
after(async () => {
  for (const close of closers.reverse()) await close()
  await browser?.close()
})

// --- helpers -----------------------------------------------------------------------------------

async function serve(env: Record<string, string>, timeoutMs?: number): Promise<StartedServer> {
  const server = await startServerProcess(env, timeoutMs)
  file.after(() => stopServerProcess(server))
  return server
}

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  file.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init)
  assert.ok(res.ok, `${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.clone().text()}`)
  return (await res.json()) as T
}

/** A fresh page on `/explorer#<hash>`, once the view whose <h1> reads `heading` is shown. */
async function openView(base: string, hash: string, heading: string | RegExp): Promise<WatchedPage> {
  const watched = await openWatchedPage(browser)
  await watched.page.goto(`${base}/explorer#${hash}`)
  await waitForHeading(watched.page, heading)
  return watched
}

async function waitForHeading(page: Page, heading: string | RegExp): Promise<void> {
  await page.locator('#main:not([aria-busy]) h1').filter({ hasText: heading }).waitFor({ timeout: WAIT_MS })
}

/** Waits until the first element matching `selector` has text matching `pattern`; returns the text. */
async function waitForText(page: Page, selector: string, pattern: RegExp): Promise<string> {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) =>
        new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern.source, pattern.flags] as const,
      { timeout: WAIT_MS },
    )
  } catch {
    const text = await page
      .locator(selector)
      .first()
      .textContent({ timeout: 1000 })
      .catch(() => null)
    assert.fail(`${selector} never matched ${pattern}; it reads ${JSON.stringify(text)}`)
  }
  return (await page.locator(selector).first().textContent()) ?? ''
}

/** The <dd> after the <dt> reading `term` in the view's facts. */
function factOf(page: Page, term: string): Promise<string> {
  return page.evaluate((t) => {
    const dt = [...document.querySelectorAll('.facts dt')].find((el) => el.textContent === t)
    return dt?.nextElementSibling?.textContent ?? ''
  }, term)
}

/** Replaces the arguments textarea's text as typing would (an `input` event the page checks on). */
async function setArguments(page: Page, value: unknown): Promise<void> {
  await page.locator('#arguments').fill(typeof value === 'string' ? value : JSON.stringify(value))
}

/** What the focused element is, readably: `#id`, `a "text"`, `main`. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement
    if (!el || el === document.body) return 'body'
    if (el.id) return `#${el.id}`
    return `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 60)}"`
  })
}

/** Presses Tab until the focus is on `target` (at most `limit` times); returns what it passed through. */
async function tabTo(page: Page, target: string, limit = 60): Promise<string[]> {
  const passed: string[] = []
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    const now = await focused(page)
    passed.push(now)
    if (now === target) return passed
  }
  assert.fail(`Tab never reached ${target}; it went through ${passed.join(', ')}`)
}

const numbers = new Intl.NumberFormat('en')
const formatNumber = (n: number) => numbers.format(n)
const formatBytes = (bytes: number) =>
  bytes < 10_000 ? `${formatNumber(bytes)} B` : `${(bytes / 1000).toFixed(1)} kB`

interface ToolList {
  readonly catalogVersion: string
  readonly services: readonly { readonly id: string; readonly alias: string }[]
  readonly tools: readonly {
    readonly name: string
    readonly service: number
    readonly safety: 'read' | 'write' | 'destructive'
    readonly approval: boolean
  }[]
}
interface ToolPage {
  readonly renderings: readonly { format: string; label: string; bytes: number; tokens: number }[]
}
interface SourceOverview {
  readonly sourceId: string
  readonly status: string
  readonly problems: readonly { pointer: string; message: string; severity: string }[]
}

// --- the shipped specs, the example upstream ---------------------------------------------------

describe('the shipped specs with the example upstream', () => {
  let base: string
  before(async () => {
    base = (await serve({ SPECS_DIR: '', EXAMPLE_UPSTREAM: 'auto' })).url
  })

  test('the overview shows the catalog version GET /version reports and the shipped sources', async () => {
    const { catalogVersion } = await getJson<{ catalogVersion: string }>(`${base}/version`)
    const watched = await openView(base, '/', 'Overview')
    const { page } = watched
    assert.equal(await factOf(page, 'Catalog version'), catalogVersion)
    const rows = await page.$$eval('table.sources tbody tr', (trs) =>
      trs.map((tr) => ({
        source: tr.querySelector('th')?.textContent,
        status: tr.querySelector('.status')?.textContent,
      })),
    )
    for (const source of ['billing.json', 'tickets.yaml'])
      assert.deepEqual(
        rows.find((row) => row.source === source),
        { source, status: 'ok' },
      )
    await screenshot(page, 'overview')
    assertPageClean(watched)
    await page.close()
  })

  test('a tool page shows all five renderings, each equal to the whole document’s definition, with size and tokens', async () => {
    const name = 'billing_create_invoice'
    const mcp = await getJson<{ result: { tools: { name: string }[] } }>(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    const openai = (doc: { function: { name: string } }[]) => doc.find((d) => d.function.name === name)
    const expected = [
      (await getJson<{ functions: { name: string }[] }>(`${base}/discovery`)).functions.find(
        (f) => f.name === name,
      ),
      openai(await getJson(`${base}/openai.json`)),
      openai(await getJson(`${base}/openai.json?strict=true`)),
      (await getJson<{ name: string }[]>(`${base}/claude.json`)).find((d) => d.name === name),
      mcp.result.tools.find((d) => d.name === name),
    ]
    for (const definition of expected) assert.ok(definition, `${name} is in every whole document`)
    const api = await getJson<ToolPage>(`${base}/explorer/api/tools/${name}`)

    const watched = await openView(base, `/tools/${name}`, name)
    const { page } = watched
    const shown = await page.$$eval('.rendering', (sections) =>
      sections.map((section) => ({
        label: section.querySelector('h3')?.textContent,
        size: section.querySelector('.size')?.textContent,
        json: section.querySelector('pre.json')?.textContent ?? '',
      })),
    )
    assert.deepEqual(
      shown.map((r) => r.label),
      ['Opal', 'OpenAI', 'OpenAI strict', 'Claude', 'MCP'],
    )
    shown.forEach((rendering, i) => {
      assert.ok(rendering.json.length > 2, `${rendering.label}: a JSON block`)
      assert.deepEqual(
        JSON.parse(rendering.json),
        expected[i],
        `${rendering.label}: the document's definition`,
      )
      const tokens = api.renderings[i]!.tokens
      assert.ok(tokens > 0, `${rendering.label}: tokens counted`)
      const bytes = Buffer.byteLength(JSON.stringify(expected[i]))
      assert.equal(rendering.size, `${formatBytes(bytes)} · ${formatNumber(tokens)} tokens`)
    })
    await screenshot(page, 'tool-page')
    assertPageClean(watched)
    await page.close()
  })

  test('a real call answered by the example upstream shows HTTP 200 and the ticket', async () => {
    const ticket = await getJson<{ id: string; title: string }>(`${base}/tools/tickets_get_ticket`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ticketId":"T-1001"}',
    })
    assert.ok(ticket.title, 'the example upstream has a title for T-1001')
    const watched = await openView(base, '/tools/tickets_get_ticket', 'tickets_get_ticket')
    const { page } = watched
    await setArguments(page, { ticketId: 'T-1001' })
    await page.locator('#check.ok').waitFor({ timeout: WAIT_MS })
    await page.getByRole('button', { name: 'Call', exact: true }).click()
    await waitForText(page, '.result .status-line', /^HTTP 200 · [\d,]+ ms$/)
    const answer = JSON.parse((await page.locator('.result pre.json').textContent()) ?? '') as typeof ticket
    assert.equal(answer.id, 'T-1001')
    assert.equal(answer.title, ticket.title)
    await page.locator('.result').scrollIntoViewIfNeeded()
    await screenshot(page, 'call', false)
    assertPageClean(watched)
    await page.close()
  })

  test('the page checks arguments before sending: invalid JSON, then a schema violation, disable both buttons', async () => {
    const watched = await openView(base, '/tools/tickets_get_ticket', 'tickets_get_ticket')
    const { page } = watched
    const buttons = page.locator('.try .actions button')
    assert.equal(await buttons.count(), 2)
    const disabled = () => buttons.evaluateAll((els) => els.map((b) => (b as PageElement).disabled))
    assert.deepEqual(await disabled(), [false, false], 'the example is valid')

    await setArguments(page, '{"ticketId": ')
    await waitForText(page, '#check.bad', /Not sent: \(arguments\) is not JSON/)
    assert.deepEqual(await disabled(), [true, true])

    await setArguments(page, { ticketId: 'ticket one', limit: 'x' })
    await waitForText(page, '#check.bad', /\/ticketId/)
    const violations = await page.$$eval('#check li', (lis) =>
      lis.map((li) => ({ path: li.querySelector('code')?.textContent, text: li.textContent })),
    )
    const onTicketId = violations.find((v) => v.path === '/ticketId')
    assert.ok(onTicketId, `a violation at /ticketId in ${JSON.stringify(violations)}`)
    assert.match(onTicketId.text ?? '', /pattern/i)
    assert.deepEqual(await disabled(), [true, true])
    await page.locator('.try').scrollIntoViewIfNeeded()
    await screenshot(page, 'check-violation', false)

    await setArguments(page, {})
    await waitForText(page, '#check.bad', /ticketId/)
    assert.match((await page.locator('#check li').first().textContent()) ?? '', /required/i)

    await setArguments(page, { ticketId: 'T-1' })
    await waitForText(page, '#check.ok', /Valid/)
    assert.deepEqual(await disabled(), [false, false])
    assertPageClean(watched)
    await page.close()
  })

  test('axe-core finds no serious or critical violation on the overview, tool list, a tool page and budget', async (t) => {
    const axeSource = (await import('node:fs')).readFileSync(AXE_SOURCE, 'utf8')
    const views = [
      ['/', 'Overview', 'overview'],
      ['/tools', 'Tools', 'tools'],
      ['/tools/billing_create_invoice', 'billing_create_invoice', 'tool'],
      ['/budget', 'Budget', 'budget'],
    ] as const
    const serious: string[] = []
    for (const [hash, heading, name] of views) {
      const watched = await openView(base, hash, heading)
      const { page } = watched
      // page.evaluate runs through the DevTools protocol: the CSP (script-src 'self') does not apply.
      await page.evaluate(axeSource)
      assert.equal(
        await page.evaluate(() => typeof (window as unknown as { axe?: { run?: unknown } }).axe?.run),
        'function',
      )
      const violations = await page.evaluate(async () => {
        const { axe } = window as unknown as {
          axe: { run(context: unknown, options: object): Promise<{ violations: AxeViolation[] }> }
        }
        const result = await axe.run(document, { resultTypes: ['violations'] })
        return result.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
        }))
      })
      for (const v of violations)
        t.diagnostic(`${name}: ${v.impact} ${v.id} — ${v.help} — ${v.nodes.join(' | ')}`)
      for (const v of violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'))
        serious.push(`${name}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.join(' | ')}`)
      await screenshot(page, `axe-${name}`)
      assertPageClean(watched)
      await page.close()
    }
    assert.deepEqual(serious, [])
  })

  test('everything is reachable by keyboard: skip link, sections, token, filters, tools, try it', async () => {
    const watched = await openView(base, '/', 'Overview')
    const { page } = watched
    // From a fresh load: the skip link first, then the brand, the three sections and the token field.
    assert.deepEqual(await tabTo(page, '#token', 10), [
      'a "Skip to content"',
      'a "toolgate explorer"',
      'a "Overview"',
      'a "Tools"',
      'a "Budget"',
      '#token',
    ])
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Shift+Tab')
    assert.equal(await focused(page), 'a "Tools"')
    await page.keyboard.press('Enter')
    await waitForHeading(page, 'Tools')

    // The list: search, the four filters, then the first tool.
    const firstTool = await page.locator('ol.tool-list a').first().getAttribute('href')
    const path = await tabTo(page, '#q', 5)
    assert.equal(path.length, 1, `the search box is the first stop after the heading: ${path.join(', ')}`)
    for (const id of ['#f-service', '#f-profile', '#f-safety', '#f-approval']) {
      await page.keyboard.press('Tab')
      assert.equal(await focused(page), id)
    }
    await page.keyboard.press('Tab')
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('href')), firstTool)
    await page.keyboard.press('Enter')
    const toolName = decodeURIComponent(firstTool!.replace('#/tools/', ''))
    await waitForHeading(page, toolName)

    // A tool page: the arguments, then Dry run and Call; Enter and Space both call.
    await page.goto(`${base}/explorer#/tools/tickets_get_ticket`)
    await waitForHeading(page, 'tickets_get_ticket')
    await tabTo(page, '#arguments')
    await page.keyboard.press('Tab')
    assert.equal(await focused(page), 'button "Dry run"')
    await page.keyboard.press('Tab')
    assert.equal(await focused(page), 'button "Call"')
    for (const key of ['Enter', 'Space']) {
      const called = page.waitForResponse(
        (res) => res.request().method() === 'POST' && res.url() === `${base}/tools/tickets_get_ticket`,
        { timeout: WAIT_MS },
      )
      await page.keyboard.press(key)
      assert.equal((await called).status(), 200, `${key} on Call calls the tool`)
      await waitForText(page, '.result .status-line', /^HTTP 200/)
    }
    await screenshot(page, 'keyboard-call', false)
    assertPageClean(watched)
    await page.close()
  })
})

interface AxeViolation {
  id: string
  impact?: string | null
  help: string
  nodes: { target: string[] }[]
}

// --- the real-world corpus: 21 specs, 3,800+ tools ----------------------------------------------

describe('the real-world corpus (test/fixtures/real-world)', () => {
  let base: string
  let list: ToolList
  before(
    async () => {
      // The spec files only (index.json and SOURCES.md are no specs), copied: a link out of the
      // specs directory is refused. Two petstore-v2 files would take one id: the YAML gets its own.
      const dir = await tempDir('toolgate-real-world-')
      for (const name of realWorldFiles()) await copyFile(join(REAL_WORLD_DIR, name), join(dir, name))
      const config = join(await tempDir('toolgate-config-'), 'toolgate.yaml')
      // Kubernetes and Stripe take seconds to parse on a busy two-core machine: no 5 s read bound.
      await writeFile(
        config,
        [
          'limits:',
          '  readTimeoutMs: 300000',
          'services:',
          '  petstore-v2-yaml:',
          '    source: petstore-v2.yaml',
          // No tool of the corpus needs approval by itself: Stripe's do, so the filter has some.
          'policies:',
          '  - { tools: ["stripe:*"], requiresApproval: true }',
          '',
        ].join('\n'),
      )
      base = (await serve({ SPECS_DIR: dir, TOOLGATE_CONFIG: config, EXAMPLE_UPSTREAM: 'off' }, 300_000)).url
      list = await getJson<ToolList>(`${base}/explorer/api/tools`)
    },
    { timeout: 330_000 },
  )

  test('the tool list: 2,000+ tools, filtered by service, safety and approval, searched with the catalog’s search', async () => {
    const total = list.tools.length
    assert.ok(total >= 2000, `${total} tools`)
    const watched = await openView(base, '/tools', 'Tools')
    const { page } = watched
    const countIs = (n: number, rest = '') =>
      waitForText(page, '.count', new RegExp(`^${formatNumber(n)} of ${formatNumber(total)} tools${rest}$`))
    const rowsShown = () => page.locator('ol.tool-list > li').count()
    await countIs(total)
    assert.equal(await rowsShown(), total)
    await screenshot(page, 'tools-all', false)

    const kubernetes = list.services.findIndex((service) => service.id.startsWith('kubernetes'))
    assert.ok(kubernetes >= 0, 'the corpus has Kubernetes')
    const filters = [
      ['#f-service', String(kubernetes), (i: number) => list.tools[i]!.service === kubernetes, 'service'],
      ['#f-safety', 'destructive', (i: number) => list.tools[i]!.safety === 'destructive', 'safety'],
      ['#f-approval', 'true', (i: number) => list.tools[i]!.approval, 'approval'],
    ] as const
    for (const [select, value, keep, name] of filters) {
      const expected = list.tools.filter((_, i) => keep(i)).length
      assert.ok(expected > 0 && expected < total, `${name}=${value} picks some tools: ${expected}`)
      await page.selectOption(select, value)
      await countIs(expected)
      assert.equal(await rowsShown(), expected)
      await screenshot(page, `tools-${name}`, false)
      await page.selectOption(select, '')
      await countIs(total)
    }
    // Two at once: Kubernetes tools that destroy.
    await page.selectOption('#f-service', String(kubernetes))
    await page.selectOption('#f-safety', 'destructive')
    const both = list.tools.filter((tool) => tool.service === kubernetes && tool.safety === 'destructive')
    await countIs(both.length)
    assert.deepEqual(
      await page.$$eval('ol.tool-list .name', (els) => els.map((el) => el.textContent)),
      both.map((tool) => tool.name),
    )
    await page.selectOption('#f-service', '')
    await page.selectOption('#f-safety', '')

    const task = 'list pods in a namespace'
    const search = await getJson<{ tools: { name: string }[] }>(
      `${base}/explorer/api/search?q=${encodeURIComponent(task)}`,
    )
    await page.locator('#q').fill(task)
    await countIs(search.tools.length, ` matching “${task}”, best first`)
    const ranked = await page.$$eval('ol.tool-list .name', (els) => els.map((el) => el.textContent))
    assert.deepEqual(
      ranked,
      search.tools.map((tool) => tool.name),
      'the page keeps the search’s order',
    )
    const first = list.tools.find((tool) => tool.name === ranked[0])!
    assert.equal(list.services[first.service]?.id, list.services[kubernetes]?.id)
    assert.match(first.name, /list.*namespaced_pod$/, 'a Kubernetes list-pods tool comes first')
    await screenshot(page, 'tools-search', false)
    assertPageClean(watched)
    await page.close()
  })
  test('a first load asks for the list before its stylesheet, router and view module arrive, and paints the first rows before making the rest', async () => {
    const watched = await openWatchedPage(browser)
    const { page } = watched
    // How many rows the list holds when the page marks it interactive (bench row 8's mark, made in
    // the frame that paints the list): the first rows only, the rest made after that frame.
    await page.addInitScript(() => {
      const perf = performance as unknown as { mark(name: string): unknown }
      const mark = perf.mark.bind(perf)
      perf.mark = (name: string) => {
        if (name === 'toolgate:tools-interactive')
          (window as { rowsAtMark?: number }).rowsAtMark =
            document.querySelectorAll('ol.tool-list > li').length
        return mark(name)
      }
    })
    // Held until the list's data is asked for: a page that waited for either would never show it.
    let asked = (): void => undefined
    const listAsked = new Promise<void>((resolve) => {
      asked = resolve
    })
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/explorer/api/tools') asked()
    })
    const held: string[] = []
    for (const asset of ['explorer.css', 'app.js', 'dom.js', 'tool-list.js'])
      await page.route(`**/explorer/assets/${asset}`, async (route) => {
        held.push(asset)
        await listAsked
        await route.continue()
      })
    await page.goto(`${base}/explorer#/tools`)
    await waitForHeading(page, 'Tools')
    await waitForText(page, '.count', new RegExp(`^${formatNumber(list.tools.length)} of `))
    assert.deepEqual(held.sort(), ['app.js', 'dom.js', 'explorer.css', 'tool-list.js'], 'all were held')
    // FIRST_ROWS in explorer/src/tool-list.ts.
    assert.equal(await page.evaluate(() => (window as { rowsAtMark?: number }).rowsAtMark), 120)
    assert.equal(await page.locator('ol.tool-list > li').count(), list.tools.length)
    assertPageClean(watched)
    await page.close()
  })
})

// --- a specs directory with broken files and an upstream that records --------------------------

const FILES_SPEC = `openapi: 3.1.0
info: { title: Files, version: 1.0.0 }
servers: [{ url: 'http://127.0.0.1:9' }]
paths:
  /files/{name}:
    get:
      operationId: getFile
      summary: Read a file by its name
      parameters:
        - { name: name, in: path, required: true, description: Any name, slashes included., schema: { type: string } }
      responses: { '200': { description: The file. } }
`
/** Not YAML: a flow map never closed. */
const BROKEN_YAML = `openapi: 3.1.0
info: { title: Broken, version: 1.0.0 }
paths:
  /things:
    get:
      responses:
        '200': { description: ok
`
/** YAML, but `paths` is no object: the problem has a JSON pointer. */
const BROKEN_STRUCTURE = `openapi: 3.1.0
info: { title: Bad paths, version: 1.0.0 }
paths: 42
`

/**
 * Spec text is a stranger's: markup, script, event handlers, template syntax and URL schemes in every
 * field the page shows. The page must show each one as text and run none.
 */
const HOSTILE_TEXTS = [
  '<img src=x onerror="window.__pwned=1">',
  '</script><script>window.__pwned=2</script>',
  '"><svg onload="window.__pwned=3">',
  'javascript:window.__pwned=4//',
  "{{constructor.constructor('window.__pwned=5')()}}",
  '<a href="javascript:window.__pwned=6">x</a>&amp;&lt;b&gt;',
]
const hostile = (i: number) => HOSTILE_TEXTS[i % HOSTILE_TEXTS.length]!
const HOSTILE_SPEC = JSON.stringify({
  openapi: '3.1.0',
  info: { title: hostile(0), version: '1', description: hostile(1) },
  servers: [{ url: 'http://127.0.0.1:9' }],
  tags: [{ name: hostile(2) }],
  paths: {
    '/hostile/{id}': {
      post: {
        operationId: 'hostileThing',
        summary: hostile(3),
        description: HOSTILE_TEXTS.join(' '),
        tags: [hostile(2)],
        parameters: [
          { name: 'id', in: 'path', required: true, description: hostile(4), schema: { type: 'string' } },
          {
            name: 'q<b>',
            in: 'query',
            description: hostile(5),
            schema: { type: 'string', enum: [hostile(0)] },
          },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['note'],
                properties: { note: { type: 'string', description: hostile(1), examples: [hostile(2)] } },
              },
            },
          },
        },
        responses: { '200': { description: hostile(3) } },
      },
    },
  },
})

describe('a specs directory with a good spec, broken ones, and an upstream that records', () => {
  let base: string
  let upstream: TestUpstream
  before(async () => {
    upstream = await startUpstream(file)
    const dir = await tempDir('toolgate-specs-')
    await writeFile(join(dir, 'files.yaml'), FILES_SPEC)
    await writeFile(join(dir, 'broken.yaml'), BROKEN_YAML)
    await writeFile(join(dir, 'bad-paths.yaml'), BROKEN_STRUCTURE)
    await writeFile(join(dir, 'hostile.json'), HOSTILE_SPEC)
    const config = join(await tempDir('toolgate-config-'), 'toolgate.yaml')
    await writeFile(config, `services:\n  files:\n    upstream: ${upstream.url}/base\n`)
    base = (await serve({ SPECS_DIR: dir, TOOLGATE_CONFIG: config, EXAMPLE_UPSTREAM: 'off' })).url
  })

  test('a dry run shows the upstream URL with the path parameter encoded, and sends nothing', async () => {
    const watched = await openView(base, '/tools/files_get_file', 'files_get_file')
    const { page } = watched
    await setArguments(page, { name: 'a/b c é' })
    await page.locator('#check.ok').waitFor({ timeout: WAIT_MS })
    await page.getByRole('button', { name: 'Dry run', exact: true }).click()
    // Whatever came back (an answer, or the page's own failure), the upstream must have seen nothing.
    const status = await waitForText(page, '.result .status-line', /\S/)
    await page.locator('.result').scrollIntoViewIfNeeded()
    await screenshot(page, 'dry-run', false)
    assert.deepEqual(
      upstream.received.map((r) => `${r.method} ${r.target}`),
      [],
      'a dry run sends nothing upstream (needs POST /tools/:name?dryRun=true)',
    )
    assert.match(status, /^HTTP 200/)
    assert.equal(
      await page.locator('.upstream-url').textContent({ timeout: WAIT_MS }),
      `GET ${upstream.url}/base/files/a%2Fb%20c%20%C3%A9`,
    )
    assertPageClean(watched)
    await page.close()
  })

  test('spec text with markup, script and handlers is shown as text on every view, and runs nothing', async () => {
    const list = await getJson<{ tools: { name: string }[] }>(`${base}/explorer/api/tools`)
    const name = list.tools.find((tool) => tool.name.includes('hostile'))!.name
    for (const [hash, heading] of [
      ['/', 'Overview'],
      ['/tools', 'Tools'],
      [`/tools/${name}`, name],
      ['/budget', 'Budget'],
    ] as const) {
      const watched = await openView(base, hash, heading)
      const { page } = watched
      if (hash === `/tools/${name}`) {
        const text = (await page.locator('main').textContent()) ?? ''
        for (const payload of HOSTILE_TEXTS) assert.ok(text.includes(payload), `shown as text: ${payload}`)
        await page.getByRole('button', { name: 'Dry run', exact: true }).click()
        await waitForText(page, '.result .status-line', /^HTTP 200/)
        await screenshot(page, 'hostile-tool')
      }
      assert.equal(await page.evaluate(() => (window as { __pwned?: number }).__pwned), undefined, hash)
      const injected = await page.evaluate(
        () =>
          document.querySelectorAll(
            'main img, main svg:not([role="img"]), main script, main [onerror], main [onload]',
          ).length,
      )
      assert.equal(injected, 0, `${hash}: no element made from spec text`)
      assertPageClean(watched)
      await page.close()
    }
  })

  test('a broken spec is shown failed, with its problem’s message and JSON pointer', async () => {
    const overview = await getJson<{ sources: SourceOverview[] }>(`${base}/explorer/api/overview`)
    const watched = await openView(base, '/', 'Overview')
    const { page } = watched
    const rows = await page.$$eval('table.sources tbody tr', (trs) =>
      trs.map((tr) => ({
        source: tr.querySelector('th')?.textContent,
        status: tr.querySelector('.status')?.textContent,
        failedRow: tr.classList.contains('row-failed'),
      })),
    )
    assert.deepEqual(rows.find((row) => row.source === 'files.yaml')?.status, 'ok')
    for (const sourceId of ['broken.yaml', 'bad-paths.yaml']) {
      assert.deepEqual(
        rows.find((row) => row.source === sourceId),
        { source: sourceId, status: 'failed', failedRow: true },
      )
      const source = overview.sources.find((s) => s.sourceId === sourceId)!
      const problem = source.problems.find((p) => p.severity === 'error')!
      const details = page.locator(`details#source-${sourceId.replace('.', '-')}`)
      assert.equal(await details.getAttribute('open'), '', `${sourceId}: its problems are open`)
      const item = details.locator('li.problem-error').first()
      assert.equal(await item.locator('.pointer').textContent(), problem.pointer || '/')
      assert.ok((await item.textContent())?.includes(problem.message), `${sourceId}: ${problem.message}`)
    }
    const badPaths = overview.sources.find((s) => s.sourceId === 'bad-paths.yaml')!
    assert.equal(badPaths.problems[0]?.pointer, '/paths', 'a problem with a JSON pointer is among them')
    assert.match(
      (await page.locator('p.alert').textContent()) ?? '',
      /^2 sources not serving as written: .*broken\.yaml \(failed\)/,
    )
    await screenshot(page, 'broken-spec')
    assertPageClean(watched)
    await page.close()
  })
})

// --- production: an operator's token ------------------------------------------------------------

describe('production, where the explorer needs an operator’s token', () => {
  const token = 'explorer-operator-token-0123456789'
  let base: string
  before(async () => {
    const config = join(await tempDir('toolgate-config-'), 'toolgate.yaml')
    await writeFile(
      config,
      `clients:\n  - id: ops\n    token: { value: ${token} }\n    operator: true\n  - id: agent\n    token: { value: agent-token-0123456789abcdef }\n`,
    )
    base = (
      await serve({ SPECS_DIR: '', EXAMPLE_UPSTREAM: 'off', NODE_ENV: 'production', TOOLGATE_CONFIG: config })
    ).url
  })

  test('without a token the page asks for one; with the operator’s token the overview loads', async () => {
    const { catalogVersion } = await getJson<{ catalogVersion: string }>(`${base}/version`)
    const watched = await openView(base, '/', 'An operator’s token is needed')
    const { page } = watched
    assert.equal(await focused(page), '#token', 'the focus is on the token field')
    await screenshot(page, 'token-needed')

    // A client that is no operator is refused the same way.
    await page.locator('#token').fill('agent-token-0123456789abcdef')
    await page.keyboard.press('Enter')
    await waitForText(page, '#main .notice p', /operator|TG_ERR_ACCESS/i)
    await waitForHeading(page, 'An operator’s token is needed')

    await page.locator('#token').fill(token)
    await page.getByRole('button', { name: 'Use', exact: true }).click()
    await waitForHeading(page, 'Overview')
    assert.equal(await factOf(page, 'Catalog version'), catalogVersion)
    assert.equal(await page.evaluate(() => sessionStorage.getItem('toolgate.explorer.token')), token)
    await screenshot(page, 'token-overview')
    assertPageClean(watched, FAILED_LOAD)
    await page.close()
  })

  test('a first load asks for its view’s data once, with the tab’s token, before the page’s modules arrive', async () => {
    const answer = await fetch(`${base}/explorer/api/tools`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const { tools } = (await answer.json()) as { tools: { name: string }[] }
    const name = tools[0]!.name
    const views = [
      { hash: '/', path: '/explorer/api/overview', heading: 'Overview' },
      { hash: '/tools', path: '/explorer/api/tools', heading: 'Tools' },
      { hash: '/budget', path: '/explorer/api/budgets', heading: 'Budget' },
      { hash: `/tools/${name}`, path: `/explorer/api/tools/${encodeURIComponent(name)}`, heading: name },
    ]
    for (const { hash, path, heading } of views) {
      const watched = await openWatchedPage(browser)
      const { page } = watched
      // A returning tab: the token is in sessionStorage before the page's first script runs.
      await page.addInitScript((value) => sessionStorage.setItem('toolgate.explorer.token', value), token)
      const asked: string[] = []
      let askedOnce = (): void => undefined
      const dataAsked = new Promise<void>((resolve) => {
        askedOnce = resolve
      })
      page.on('request', (request) => {
        const url = new URL(request.url())
        if (!url.pathname.startsWith('/explorer/api/')) return
        asked.push(`${request.method()} ${url.pathname} ${request.headers().authorization}`)
        askedOnce()
      })
      // boot.js asks, not a module: the page would never show its view if a module had to.
      for (const module of ['api.js', 'app.js'])
        await page.route(`**/explorer/assets/${module}`, async (route) => {
          await dataAsked
          await route.continue()
        })
      await page.goto(`${base}/explorer#${hash}`)
      await waitForHeading(page, heading)
      assert.deepEqual(asked, [`GET ${path} Bearer ${token}`], hash)
      assertPageClean(watched)
      await page.close()
    }
  })
})
