// Row 8 (issue 19): how long until the explorer's tool list answers input, with 2,113 tools
// (Kubernetes 1.13, DigitalOcean and Stripe from test/fixtures/real-world), in Debian's headless
// Chromium. The baseline, in the same browser against the same gateway: a bare page that fetches
// the same tool list and puts each name on screen as a link — the fetch, parse and layout every
// page showing these tools pays, and nothing else.
import { createHash } from 'node:crypto'
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import type { RowContext } from '../lib/context.js'
import { fromRoot } from '../lib/paths.js'
import { type Started, startGateway, stop } from '../lib/processes.js'
import { ms, type RowResult, rangeOf } from '../lib/report.js'
import { round, summarize } from '../lib/stats.js'

const SPECS = ['kubernetes-v1.13.json', 'digitalocean.yaml', 'stripe.json']
const TOKEN = 'bench-explorer-operator-token-01'
/** Loads per side per run: each a fresh browser context (no cache), as a first visit is. */
const LOADS = 5
const MARK = 'toolgate:tools-interactive'

/** The floor: fetch the list, one link per tool, mark. Served by Playwright on the gateway's origin. */
const BASELINE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>baseline</title></head><body><ol id="l"></ol>
<script type="module">
const answer = await fetch('/explorer/api/tools', { headers: { authorization: 'Bearer ${TOKEN}' } })
const list = await answer.json()
const items = document.getElementById('l')
items.replaceChildren(...list.tools.map((tool) => {
  const li = document.createElement('li')
  const a = document.createElement('a')
  a.href = '#/tools/' + tool.name
  a.textContent = tool.name
  li.append(a)
  return li
}))
requestAnimationFrame(() => performance.mark('${MARK}'))
</script></body></html>`

export async function explorerRows(ctx: RowContext): Promise<RowResult[]> {
  ctx.log(`row 8: explorer tool list until interactive, ${SPECS.join(' + ')}`)
  const specs = join(ctx.tmp, 'explorer-specs')
  await mkdir(specs, { recursive: true })
  for (const file of SPECS)
    await copyFile(fromRoot('test', 'fixtures', 'real-world', file), join(specs, file))
  const config = join(ctx.tmp, 'explorer.yaml')
  await writeFile(
    config,
    `clients:\n  - id: bench-operator\n    token: { sha256: ${createHash('sha256').update(TOKEN).digest('hex')} }\n    operator: true\n`,
  )
  let gateway: Started | undefined
  let browser: Browser | undefined
  try {
    // Production defaults: access control on, the page's data for an operator only.
    gateway = await startGateway(
      'toolgate',
      { SPECS_DIR: specs, TOOLGATE_CONFIG: config, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
      ctx.cpus.server,
    )
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
    })
    const explorer = await timeLoads(browser, `${gateway.url}/explorer#/tools`, LOADS)
    const bare = await timeLoads(browser, `${gateway.url}/bench-baseline`, LOADS, BASELINE_PAGE)
    const tools = await toolCount(browser, gateway.url)
    // One warm-up pair (above, discarded by timeLoads), then runs × LOADS each, alternating sides.
    const runs: { explorer: number; baseline: number }[] = []
    for (let i = 0; i < ctx.options.runs; i++) {
      const candidate = summarize(await timeLoads(browser, `${gateway.url}/explorer#/tools`, LOADS)).median
      const floor = summarize(
        await timeLoads(browser, `${gateway.url}/bench-baseline`, LOADS, BASELINE_PAGE),
      ).median
      runs.push({ explorer: candidate, baseline: floor })
    }
    const ratios = runs.map((run) => run.explorer / run.baseline)
    const median = (pick: (run: { explorer: number; baseline: number }) => number) =>
      summarize(runs.map(pick)).median
    return [
      {
        id: '8',
        row: 'explorer',
        figure: `explorer tool list until interactive, ${tools.toLocaleString('en-US')} tools, headless Chromium (median of ${LOADS} cold loads a run)`,
        metric: 'time ratio',
        value: round(summarize(ratios).median, 2),
        target: { op: '<=', value: 2 },
        candidate: ms(median((run) => run.explorer)),
        baseline: `bare list page ${ms(median((run) => run.baseline))}`,
        range: rangeOf(summarize(ratios)),
        problems: tools >= 2_000 ? [] : [`only ${tools} tools listed`],
        details: { runs, warmUp: { explorer, baseline: bare } },
      },
    ]
  } finally {
    await browser?.close()
    await stop(gateway)
  }
}

/**
 * Milliseconds from navigation start to the page's mark, for `loads` fresh contexts: no HTTP
 * cache, no sessionStorage but the operator token the page is given as a user would type it.
 */
async function timeLoads(browser: Browser, url: string, loads: number, fulfil?: string): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < loads; i++) {
    const context = await browser.newContext()
    await context.addInitScript(`sessionStorage.setItem('toolgate.explorer.token', '${TOKEN}')`)
    if (fulfil)
      await context.route('**/bench-baseline', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: fulfil }),
      )
    const page = await context.newPage()
    await page.goto(url)
    await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, MARK, {
      timeout: 60_000,
    })
    times.push(await page.evaluate((mark) => performance.getEntriesByName(mark)[0]!.startTime, MARK))
    await context.close()
  }
  return times
}

async function toolCount(browser: Browser, base: string): Promise<number> {
  const context = await browser.newContext()
  const answer = await context.request.get(`${base}/explorer/api/tools`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  })
  const list = (await answer.json()) as { tools: unknown[] }
  await context.close()
  return list.tools.length
}
