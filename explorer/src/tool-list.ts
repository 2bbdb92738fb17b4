import { load, paths } from './api.js'
import { formatNumber, h } from './dom.js'
import type { SearchAnswer, ToolList, ToolRow } from './types.js'

/** Typing pauses this long before the catalog's search is asked. */
const SEARCH_DELAY_MS = 150
/**
 * Rows put on screen at once: more than a tall screen holds. The rest follow in tasks of
 * `MORE_ROWS`, so the list answers input while 2,000 rows are still being made (bench row 8).
 */
const FIRST_ROWS = 120
const MORE_ROWS = 400

interface Filters {
  query: string
  service: string
  profile: string
  safety: string
  approval: string
}

/**
 * The list is built once per catalog version and kept: coming back from a tool page is instant,
 * with its filters as they were. Each row is a link; rows are made when first shown and then only
 * re-ordered or left out by the filters, so a filter change on 4,000 tools touches no row's content.
 */
let built: { version: string; view: HTMLElement } | undefined

export async function renderToolList(): Promise<Node> {
  const list = await load<ToolList>(paths.tools)
  if (built?.version !== list.catalogVersion) built = { version: list.catalogVersion, view: buildView(list) }
  return built.view
}

function buildView(list: ToolList): HTMLElement {
  const filters: Filters = { query: '', service: '', profile: '', safety: '', approval: '' }
  const rows: (HTMLLIElement | undefined)[] = new Array(list.tools.length)
  const rowAt = (i: number): HTMLLIElement => {
    rows[i] ??= row(list.tools[i]!, list)
    return rows[i]
  }
  let shown = 0
  // Made on the first search, which needs it: 2–4 ms of the list's first show otherwise.
  let byName: Map<string, number> | undefined
  const profiles = new Map(list.profiles.map((profile) => [profile.name, new Set(profile.tools)]))
  let ranked: number[] | undefined
  let searchTicket = 0

  const count = h('p', { class: 'count', role: 'status', 'aria-live': 'polite' })
  const items = h('ol', { class: 'tool-list', 'aria-label': 'Tools' })

  const keep = (i: number): boolean => {
    const tool = list.tools[i]!
    if (filters.service !== '' && String(tool.service) !== filters.service) return false
    if (filters.profile !== '' && !profiles.get(filters.profile)?.has(i)) return false
    if (filters.safety !== '' && tool.safety !== filters.safety) return false
    if (filters.approval !== '' && String(tool.approval) !== filters.approval) return false
    return true
  }
  // The status line says how many once every row is in the list; until then the list is busy.
  const show = () => {
    const ticket = ++shown
    const order = ranked ?? list.tools.map((_, i) => i)
    const visible = order.filter(keep)
    const searched = ranked ? ` matching “${filters.query.trim()}”, best first` : ''
    items.replaceChildren(...visible.slice(0, FIRST_ROWS).map(rowAt))
    let next = FIRST_ROWS
    const more = () => {
      if (ticket !== shown) return
      if (next < visible.length) {
        items.append(...visible.slice(next, next + MORE_ROWS).map(rowAt))
        next += MORE_ROWS
        setTimeout(more, 0)
        return
      }
      items.removeAttribute('aria-busy')
      count.textContent = `${formatNumber(visible.length)} of ${formatNumber(list.tools.length)} tools${searched}`
    }
    if (next >= visible.length) return more()
    items.setAttribute('aria-busy', 'true')
    count.textContent = `Showing ${formatNumber(visible.length)} tools…`
    // After the frame that paints the first rows: a task queued now would run before that frame
    // (a timer is due at once, a frame only at the next vsync) and hold back its style and layout.
    requestAnimationFrame(() => setTimeout(more, 0))
  }
  const search = async () => {
    const ticket = ++searchTicket
    const query = filters.query.trim()
    if (query === '') {
      ranked = undefined
      return show()
    }
    items.setAttribute('aria-busy', 'true')
    const answer = await load<SearchAnswer>(
      `/explorer/api/search?q=${encodeURIComponent(query.slice(0, 500))}`,
    )
    if (ticket !== searchTicket) return
    items.removeAttribute('aria-busy')
    byName ??= new Map(list.tools.map((tool, i) => [tool.name, i]))
    const index = byName
    ranked = answer.tools.flatMap((hit) => index.get(hit.name) ?? [])
    show()
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  const onQuery = (event: Event) => {
    filters.query = (event.target as HTMLInputElement).value
    clearTimeout(timer)
    timer = setTimeout(() => {
      search().catch((error: unknown) => {
        items.removeAttribute('aria-busy')
        count.textContent = `Search failed: ${error instanceof Error ? error.message : String(error)}`
      })
    }, SEARCH_DELAY_MS)
  }
  const onSelect = (key: Exclude<keyof Filters, 'query'>) => (event: Event) => {
    filters[key] = (event.target as HTMLSelectElement).value
    show()
  }

  const view = h(
    'div',
    { class: 'tools' },
    h('h1', null, 'Tools'),
    h(
      'form',
      { class: 'filters', role: 'search', onsubmit: (event: Event) => event.preventDefault() },
      field(
        'q',
        'Search',
        h('input', {
          id: 'q',
          type: 'search',
          placeholder: 'a task in words: list pods, refund a charge',
          oninput: onQuery,
          autocomplete: 'off',
        }),
      ),
      field(
        'f-service',
        'Service',
        select(
          'f-service',
          'All services',
          list.services.map((service, i) => [
            String(i),
            service.alias === service.id ? service.id : `${service.alias} (${service.id})`,
          ]),
          onSelect('service'),
        ),
      ),
      field(
        'f-profile',
        'Profile',
        select(
          'f-profile',
          'All profiles',
          list.profiles.map((profile) => [profile.name, `${profile.name} (${profile.tools.length})`]),
          onSelect('profile'),
        ),
      ),
      field(
        'f-safety',
        'Safety',
        select(
          'f-safety',
          'Any',
          [
            ['read', 'read-only'],
            ['write', 'writes'],
            ['destructive', 'destructive'],
          ],
          onSelect('safety'),
        ),
      ),
      field(
        'f-approval',
        'Approval',
        select(
          'f-approval',
          'Any',
          [
            ['true', 'required'],
            ['false', 'not required'],
          ],
          onSelect('approval'),
        ),
      ),
    ),
    count,
    items,
  )
  show()
  // What the bench reads (row 8): the list is on screen and answers input.
  requestAnimationFrame(() => performance.mark('toolgate:tools-interactive'))
  return view
}

function row(tool: ToolRow, list: ToolList): HTMLLIElement {
  const service = list.services[tool.service]
  return h(
    'li',
    null,
    h(
      'a',
      { href: `#/tools/${tool.name}` },
      h('span', { class: `method method-${tool.method.toLowerCase()}` }, tool.method),
      h('span', { class: 'name' }, tool.name),
      h('span', { class: 'path' }, tool.path),
      h('span', { class: 'title' }, tool.title),
      h(
        'span',
        { class: 'badges' },
        service ? h('span', { class: 'badge' }, service.alias) : null,
        tool.safety !== 'write'
          ? h(
              'span',
              { class: `badge badge-${tool.safety}` },
              tool.safety === 'read' ? 'read-only' : 'destructive',
            )
          : null,
        tool.approval ? h('span', { class: 'badge badge-approval' }, 'approval') : null,
        tool.deprecated ? h('span', { class: 'badge' }, 'deprecated') : null,
        tool.hidden ? h('span', { class: 'badge' }, 'hidden') : null,
      ),
    ),
  )
}

function field(id: string, label: string, control: HTMLElement): HTMLElement {
  return h('div', { class: 'field' }, h('label', { for: id }, label), control)
}

function select(
  id: string,
  all: string,
  options: readonly (readonly [string, string])[],
  onChange: (event: Event) => void,
): HTMLSelectElement {
  return h(
    'select',
    { id, onchange: onChange },
    h('option', { value: '' }, all),
    options.map(([value, text]) => h('option', { value }, text)),
  )
}
