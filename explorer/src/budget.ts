import { load, paths } from './api.js'
import { formatBytes, formatNumber, h, s } from './dom.js'
import type { Budgets, Size } from './types.js'

const LABELS: Readonly<Record<string, string>> = {
  opal: 'Opal',
  openai: 'OpenAI',
  'openai-strict': 'OpenAI strict',
  claude: 'Claude',
  mcp: 'MCP tools/list',
  'openai-deferred': 'OpenAI deferred',
  'openai-deferred-strict': 'OpenAI deferred strict',
  'claude-deferred': 'Claude deferred',
}

const BAR = 16
const GAP = 4
const LABEL_WIDTH = 190
const CHART_WIDTH = 520
const VALUE_WIDTH = 130

/**
 * What each profile costs an agent, per format: the whole document, and what a deferred document
 * loads before any search. Tokens when counted (bytes while the build process counts), on a log
 * scale — a deferred document is thousands of times smaller than the whole one. A table holds the
 * same numbers for screen readers and copying.
 */
export async function renderBudget(): Promise<Node> {
  const budgets = await load<Budgets>(paths.budgets)
  const formats = [...budgets.formats.full, ...budgets.formats.deferred]
  const counted = budgets.profiles.every((p) => formats.every((f) => p.sizes[f]?.tokens !== undefined))
  const measure = (size: Size | undefined) => (counted ? size?.tokens : size?.bytes) ?? 0
  const unit = counted ? 'tokens' : 'bytes'
  const max = Math.max(1, ...budgets.profiles.flatMap((p) => formats.map((f) => measure(p.sizes[f]))))
  const scale = (value: number) =>
    value <= 0 ? 0 : (Math.log10(value + 1) / Math.log10(max + 1)) * CHART_WIDTH
  const show = (value: number) => (counted ? `${formatNumber(value)} tokens` : formatBytes(value))

  const charts = budgets.profiles.map((profile) => {
    const height = formats.length * (BAR + GAP) + GAP
    const width = LABEL_WIDTH + CHART_WIDTH + VALUE_WIDTH
    const summary = formats.map((f) => `${LABELS[f] ?? f} ${show(measure(profile.sizes[f]))}`).join(', ')
    return h(
      'figure',
      { class: 'budget' },
      h(
        'figcaption',
        null,
        h('strong', null, profile.name),
        ` — ${formatNumber(profile.sizes.openai?.tools ?? 0)} tools`,
      ),
      s(
        'svg',
        {
          viewBox: `0 0 ${width} ${height}`,
          width,
          height,
          role: 'img',
          'aria-label': `${profile.name}: ${summary}`,
        },
        formats.map((format, i) => {
          const value = measure(profile.sizes[format])
          const y = GAP + i * (BAR + GAP)
          const deferred = budgets.formats.deferred.includes(format)
          return s(
            'g',
            null,
            s(
              'text',
              { x: LABEL_WIDTH - 8, y: y + BAR - 4, 'text-anchor': 'end', class: 'bar-label' },
              LABELS[format] ?? format,
            ),
            s('rect', {
              x: LABEL_WIDTH,
              y,
              width: Math.max(1, scale(value)),
              height: BAR,
              class: deferred ? 'bar bar-deferred' : 'bar bar-full',
            }),
            s('text', { x: LABEL_WIDTH + scale(value) + 6, y: y + BAR - 4, class: 'bar-value' }, show(value)),
          )
        }),
      ),
    )
  })

  return h(
    'div',
    { class: 'budgets' },
    h('h1', null, 'Budget'),
    h(
      'p',
      null,
      `What each profile costs an agent before its first call, in ${unit}${counted ? ' (o200k_base, the compact JSON the model holds)' : ' (token counts are still being made)'}. `,
      'Dark bars are whole documents; light bars are deferred documents, which load only the namespaces or the search tool up front. The scale is logarithmic.',
    ),
    charts,
    h('h2', null, 'The numbers'),
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Budget numbers' },
      h(
        'table',
        { class: 'budget-table' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'Profile'),
            formats.map((f) => h('th', { scope: 'col' }, LABELS[f] ?? f)),
          ),
        ),
        h(
          'tbody',
          null,
          budgets.profiles.map((profile) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row' }, profile.name),
              formats.map((f) => {
                const size = profile.sizes[f]
                return h(
                  'td',
                  { class: 'num' },
                  size
                    ? `${size.tokens !== undefined ? `${formatNumber(size.tokens)} tok${size.tokensEstimated ? ' ≈' : ''}` : '—'} · ${formatBytes(size.bytes)}`
                    : '—',
                )
              }),
            ),
          ),
        ),
      ),
    ),
  )
}
