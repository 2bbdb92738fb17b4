import { ApiError, currentHash, dataPathFor, prefetch, setToken, token } from './api.js'
import { h } from './dom.js'

/**
 * The explorer's router: `#/` overview, `#/tools` the list, `#/tools/<name>` one tool, `#/budget`.
 * Each view replaces <main>'s content; after a navigation its heading takes focus, so a keyboard or
 * screen reader user lands on what just opened.
 *
 * boot.js imports this module: it runs as soon as it and its two imports arrive, not after the
 * stylesheet, the rest of the document or its first layout, and asks for the first view's module at
 * once (boot.js already asked for its data); only what touches the document waits for it to be
 * parsed (bench row 8).
 */
const first = { hash: currentHash(), view: viewFor(currentHash()) }
// Awaited by the first route() below; a failure is shown there, not reported as unhandled first.
first.view.catch(() => undefined)
if (document.readyState === 'loading')
  await new Promise((parsed) => document.addEventListener('DOMContentLoaded', parsed, { once: true }))

const main = document.getElementById('main') as HTMLElement
let rendering = 0

/** Shows the view of the current hash; `pending` is that view already on its way (the first load). */
async function route(pending?: Promise<Node>): Promise<void> {
  const ticket = ++rendering
  const hash = currentHash()
  const section = hash.startsWith('/tools') ? 'tools' : hash.startsWith('/budget') ? 'budget' : 'overview'
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a[data-section]')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  main.setAttribute('aria-busy', 'true')
  try {
    const view = await (pending ?? viewFor(hash))
    if (ticket !== rendering) return
    main.replaceChildren(view)
  } catch (error) {
    if (ticket !== rendering) return
    main.replaceChildren(errorView(error))
  } finally {
    if (ticket === rendering) main.removeAttribute('aria-busy')
  }
  if (ticket === rendering) {
    const heading = main.querySelector<HTMLElement>('h1')
    heading?.setAttribute('tabindex', '-1')
    // Not on the first load: the page starts at its top, so Tab reaches the skip link first.
    if (ticket > 1) heading?.focus({ preventScroll: true })
    document.title = `${heading?.textContent ?? 'toolgate'} · toolgate explorer`
  }
}

/**
 * Each view's module loads when the view is first opened: the tool list does not wait for the
 * tool page's schema validator (nine modules) or the budget chart. The view's data is asked for
 * before its module is imported, so the two arrive together.
 */
async function viewFor(hash: string): Promise<Node> {
  prefetch(dataPathFor(hash))
  const tool = /^\/tools\/(.+)$/.exec(hash)
  if (tool) return (await import('./tool-page.js')).renderToolPage(tool[1]!)
  if (hash.startsWith('/tools')) return (await import('./tool-list.js')).renderToolList()
  if (hash.startsWith('/budget')) return (await import('./budget.js')).renderBudget()
  return (await import('./overview.js')).renderOverview()
}

/** What went wrong, said plainly; a refusal for want of a token points at the token field. */
function errorView(error: unknown): Node {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    queueMicrotask(() => document.getElementById('token')?.focus())
    return h(
      'section',
      { class: 'notice', role: 'alert' },
      h('h1', null, 'An operator’s token is needed'),
      h('p', null, error.message, error.body.code ? ` (${error.body.code})` : ''),
      h(
        'p',
        null,
        'Enter a token of a client with operator: true in the field above; it is kept for this tab only.',
      ),
    )
  }
  const message = error instanceof Error ? error.message : String(error)
  return h(
    'section',
    { class: 'notice', role: 'alert' },
    h('h1', null, 'Could not load this view'),
    h('p', null, message, error instanceof ApiError && error.body.code ? ` (${error.body.code})` : ''),
  )
}

const form = document.getElementById('token-form') as HTMLFormElement
const input = document.getElementById('token') as HTMLInputElement
input.value = token() ?? ''
form.addEventListener('submit', (event) => {
  event.preventDefault()
  setToken(input.value.trim() || null)
  void route()
})
document.getElementById('token-forget')?.addEventListener('click', () => {
  input.value = ''
  setToken(null)
  void route()
})

// `#/…` is a view; any other fragment is an anchor inside the view shown (a source's problems).
window.addEventListener('hashchange', () => {
  const anchor = /^#[^/]/.test(location.hash) ? document.getElementById(location.hash.slice(1)) : null
  if (!anchor) return void route()
  anchor.setAttribute('tabindex', '-1')
  anchor.focus()
})
void route(currentHash() === first.hash ? first.view : undefined)
