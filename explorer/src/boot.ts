/**
 * The page's first script, and a classic one: the parser runs it the moment it arrives (it comes
 * before the stylesheet, so nothing holds it), where a module script waits for the page's first
 * layout — 20–130 ms on a fresh page, most of it the browser resolving fonts (bench row 8).
 *
 * It asks for the first view's data at once, as api.ts's `request` would (the same path and
 * token header: the browser tests check that each view's data is asked for once), and leaves
 * the answer on its way in `window.toolgateFirst` for api.ts to take. Then it imports api.js and
 * app.js, the router, which run as soon as they have arrived (index.html preloads them).
 */
{
  const raw = location.hash.replace(/^#/, '')
  let hash = raw
  try {
    hash = decodeURIComponent(raw) || '/'
  } catch {
    // Not valid percent-encoding: taken as it is, as app.ts does.
  }
  const tool = /^\/tools\/(.+)$/.exec(hash)
  const path = tool
    ? `/explorer/api/tools/${encodeURIComponent(tool[1]!)}`
    : hash.startsWith('/tools')
      ? '/explorer/api/tools'
      : hash.startsWith('/budget')
        ? '/explorer/api/budgets'
        : '/explorer/api/overview'
  const token = sessionStorage.getItem('toolgate.explorer.token')
  const started = performance.now()
  const response = fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  // A failure is the view's to show when it loads this path; until then it is not unhandled.
  response.catch(() => undefined)
  ;(window as { toolgateFirst?: unknown }).toolgateFirst = { path, started, response }
  void import('./api.js')
  void import('./app.js')
}
