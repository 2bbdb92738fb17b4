import assert from 'node:assert/strict'
import { mkdir } from 'node:fs/promises'
import { type Browser, chromium, type Page } from 'playwright-core'
import { fromRoot } from './paths.js'

/** Debian's chromium (no browser download: the CI machine's network is closed). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Where screenshots go: test-output/ at the project root (git-ignored). */
export const SCREENSHOT_DIR = fromRoot('test-output', 'explorer')

/** Headless Chromium as a container runs it: no sandbox (no user namespaces), no GPU, no calls home. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

/** The page's `document`, as the init script uses it (this project compiles without the DOM lib). */
declare const document: {
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: {
      violatedDirective: string
      blockedURI: string
      sourceFile: string
      lineNumber: number
    }) => void,
  ): void
}
declare const window: unknown

/** A page and what went wrong in it: console errors, uncaught errors, CSP violations. */
export interface WatchedPage {
  readonly page: Page
  readonly consoleErrors: string[]
  readonly pageErrors: string[]
  readonly cspViolations: string[]
}

/**
 * A fresh page (its own context: no sessionStorage carried over) that records console errors,
 * uncaught exceptions and every `securitypolicyviolation` event. The listener is an init script and
 * reports through a binding: both go through the DevTools protocol, which the page's CSP does not
 * govern, so the watcher itself never trips the policy it watches.
 */
export async function openWatchedPage(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  // The page's context goes with it. When the browser is closing too, the context is already gone
  // and close() rejects: nothing is left to close, and an unhandled rejection would fail the file.
  page.on('close', () => void context.close().catch(() => undefined))
  const watched: WatchedPage = { page, consoleErrors: [], pageErrors: [], cspViolations: [] }
  page.on('console', (message) => {
    if (message.type() === 'error') watched.consoleErrors.push(message.text())
  })
  page.on('pageerror', (error) => watched.pageErrors.push(error.stack ?? error.message))
  await page.exposeBinding('__toolgateCspViolation', (_source, text: string) => {
    watched.cspViolations.push(text)
  })
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __toolgateCspViolation(text: string): void })
        .__toolgateCspViolation
      report(
        `${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`,
      )
    })
  })
  return watched
}

/**
 * No uncaught error and no CSP violation; console errors too, except those matching `allowConsole`
 * (the browser logs every 4xx answer of a fetch as "Failed to load resource").
 */
export function assertPageClean(watched: WatchedPage, allowConsole?: RegExp): void {
  assert.deepEqual(watched.pageErrors, [], 'no uncaught error in the page')
  assert.deepEqual(watched.cspViolations, [], 'no Content-Security-Policy violation')
  const errors = watched.consoleErrors.filter((text) => !allowConsole?.test(text))
  assert.deepEqual(errors, [], 'no console error')
}

/** A PNG of the page under test-output/explorer/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  const path = `${SCREENSHOT_DIR}/${name}.png`
  await page.screenshot({ path, fullPage })
  return path
}
