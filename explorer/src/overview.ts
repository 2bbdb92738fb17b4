import { load, paths } from './api.js'
import { formatNumber, h } from './dom.js'
import type { Overview, ReloadOverview, SourceOverview } from './types.js'

/** Catalog version, readiness, every source with its problems, the last reloads with their diffs. */
export async function renderOverview(): Promise<Node> {
  const overview = await load<Overview>(paths.overview)
  const { counts } = overview
  const broken = overview.sources.filter((source) => source.status !== 'ok')
  return h(
    'div',
    { class: 'overview' },
    h('h1', null, 'Overview'),
    h(
      'dl',
      { class: 'facts' },
      fact('Catalog version', h('code', null, overview.catalogVersion)),
      fact('Loaded', new Date(overview.loadedAt).toLocaleString('en')),
      fact('Status', h('span', { class: `status status-${overview.status}` }, overview.status)),
      fact('Access', overview.access === 'open' ? 'open (development, no clients)' : overview.access),
      fact(
        'Gateway',
        `${overview.gateway.name} ${overview.gateway.version}, API ${overview.gateway.apiVersion}`,
      ),
      fact(
        'Catalog',
        `${count(counts.tools, 'tool')} in ${count(counts.services, 'service')}, ${count(counts.profiles, 'profile')}, ${count(counts.workflows, 'workflow')}`,
      ),
      fact('Problems', `${count(counts.errors, 'error')}, ${count(counts.warnings, 'warning')}`),
    ),
    broken.length > 0
      ? h(
          'p',
          { class: 'alert', role: 'status' },
          `${broken.length} source${broken.length === 1 ? '' : 's'} not serving as written: `,
          broken.map((source, i) => [
            i > 0 ? ', ' : '',
            h('a', { href: `#source-${slug(source.sourceId)}` }, source.sourceId),
            ` (${source.status})`,
          ]),
        )
      : null,
    h('h2', null, 'Sources'),
    sourcesTable(overview.sources),
    overview.sources.filter((source) => source.problems.length > 0).map(problemsOf),
    h('h2', null, 'Last reloads'),
    overview.reloads.length === 0
      ? h('p', null, 'No reload since the gateway started.')
      : h('ol', { class: 'reloads' }, overview.reloads.map(reloadItem)),
  )
}

function fact(term: string, value: Node | string): Node[] {
  return [h('dt', null, term), h('dd', null, value)]
}

function sourcesTable(sources: readonly SourceOverview[]): Node {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Sources' },
    h(
      'table',
      { class: 'sources' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Source', 'Kind', 'Format', 'Status', 'Tools', 'Errors', 'Warnings', 'Services'].map((name) =>
            h('th', { scope: 'col' }, name),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        sources.map((source) =>
          h(
            'tr',
            { class: source.status === 'ok' ? null : `row-${source.status}` },
            h(
              'th',
              { scope: 'row' },
              source.problems.length > 0
                ? h('a', { href: `#source-${slug(source.sourceId)}` }, source.sourceId)
                : source.sourceId,
            ),
            h('td', null, source.kind),
            h('td', null, source.format ?? '—'),
            h('td', null, h('span', { class: `status status-${source.status}` }, source.status)),
            h('td', { class: 'num' }, formatNumber(source.tools)),
            h('td', { class: 'num' }, formatNumber(source.errors)),
            h('td', { class: 'num' }, formatNumber(source.warnings)),
            h('td', null, source.services.join(', ') || '—'),
          ),
        ),
      ),
    ),
  )
}

/** One source's problems, by JSON pointer; a source with errors is open, warnings only closed. */
function problemsOf(source: SourceOverview): Node {
  const shown = source.problems.length
  const total = source.errors + source.warnings
  return h(
    'details',
    { class: 'problems', id: `source-${slug(source.sourceId)}`, open: source.errors > 0 },
    h(
      'summary',
      null,
      h('code', null, source.sourceId),
      ` — ${count(source.errors, 'error')}, ${count(source.warnings, 'warning')}`,
    ),
    h(
      'ul',
      null,
      source.problems.map((problem) =>
        h(
          'li',
          { class: `problem problem-${problem.severity}` },
          h('span', { class: 'severity' }, problem.severity),
          ' ',
          h('code', { class: 'pointer' }, problem.pointer || '/'),
          ' ',
          problem.message,
          ' ',
          h('span', { class: 'code' }, problem.code),
        ),
      ),
    ),
    total > shown ? h('p', null, `${formatNumber(total - shown)} more in /catalog (problems).`) : null,
  )
}

function reloadItem(reload: ReloadOverview): Node {
  const { added, removed, changed } = reload.diff
  const ids = (label: string, list: { count: number; ids: readonly string[] }) =>
    list.count === 0
      ? null
      : h(
          'li',
          null,
          `${label}: `,
          list.ids.map((id, i) => [i > 0 ? ', ' : '', h('code', null, id)]),
          list.count > list.ids.length ? ` and ${formatNumber(list.count - list.ids.length)} more` : '',
        )
  return h(
    'li',
    { class: `reload reload-${reload.outcome}` },
    h(
      'p',
      null,
      h('strong', null, reload.outcome === 'ok' ? 'ok' : 'failed'),
      ` ${new Date(reload.startedAt).toLocaleString('en')} (${reload.trigger}, ${formatNumber(Math.round(reload.durationMs))} ms): `,
      reload.swapped
        ? [
            h('code', null, reload.previousVersion.slice(0, 12)),
            ' → ',
            h('code', null, reload.catalogVersion.slice(0, 12)),
          ]
        : 'nothing swapped',
      ` — +${added.count} −${removed.count} ~${changed.count}`,
    ),
    reload.error ? h('p', { class: 'alert' }, reload.error) : null,
    reload.failed.length > 0 ? h('p', null, 'Failed: ', reload.failed.join(', ')) : null,
    reload.stale.length > 0
      ? h('p', null, 'Serving their last good version: ', reload.stale.join(', '))
      : null,
    h('ul', { class: 'diff' }, ids('added', added), ids('removed', removed), ids('changed', changed)),
  )
}

/** `1 tool`, `2 tools`, `1,002 tools`. */
function count(n: number, noun: string): string {
  return `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-')
}
