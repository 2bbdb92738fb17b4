import { load, paths } from './api.js'
import { formatBytes, formatNumber, h, jsonBlock } from './dom.js'
import { renderTryIt } from './try-it.js'
import type { ArgumentRow, Rendering, ToolPage } from './types.js'

/** One tool: where it came from, its arguments, safety, its rendering in every format, try it. */
export async function renderToolPage(name: string): Promise<Node> {
  const tool = await load<ToolPage>(paths.tool(name))
  const { safety, source } = tool
  return h(
    'article',
    { class: 'tool' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/tools' }, 'Tools'), ' / ', tool.service.alias),
    h('h1', null, tool.name),
    h(
      'p',
      { class: 'lead' },
      h('span', { class: `method method-${source.method.toLowerCase()}` }, source.method),
      ' ',
      h('code', null, source.path),
      ' — ',
      tool.title,
    ),
    h(
      'p',
      { class: 'badges' },
      badge(safety.readOnly, 'read-only', 'read'),
      badge(safety.destructive, 'destructive', 'destructive'),
      badge(safety.idempotent, 'idempotent'),
      badge(safety.openWorld, 'open world'),
      badge(safety.requiresApproval, 'needs approval', 'approval'),
      badge(tool.deprecated, 'deprecated'),
      badge(tool.hidden, 'hidden from discovery'),
      tool.price ? h('span', { class: 'badge' }, `price ${tool.price}`) : null,
    ),
    tool.description ? h('p', { class: 'description' }, tool.description) : null,
    h('h2', null, 'Where it comes from'),
    h(
      'dl',
      { class: 'facts' },
      fact(
        'Service',
        `${tool.service.title} (${tool.service.id}${tool.service.alias !== tool.service.id ? `, alias ${tool.service.alias}` : ''})`,
      ),
      fact('Source file', h('code', null, source.file)),
      fact('JSON pointer', h('code', null, source.pointer)),
      fact('Method and path', h('code', null, `${source.method} ${source.path}`)),
      fact(
        'operationId',
        source.operationId
          ? h('code', null, source.operationId)
          : 'none (the name comes from the method and path)',
      ),
      fact('Tool ID', h('code', null, tool.id)),
      source.remote ? fact('Remote tool', `${source.remote.name} over ${source.remote.protocol}`) : null,
      fact('Profiles', tool.profiles.join(', ') || 'none'),
      fact(
        'Credentials',
        tool.auth.length === 0 ? 'none' : tool.auth.map((schemes) => schemes.join(' + ')).join(' or '),
      ),
      tool.credentialSources.length > 0
        ? fact(
            'Credential sources',
            tool.credentialSources
              .map(
                ({ scheme, source, owner }) =>
                  `${scheme}: ${source}${source === 'gateway' ? '' : ` (${owner})`}`,
              )
              .join(', '),
          )
        : null,
      tool.bodyContentType ? fact('Body sent as', h('code', null, tool.bodyContentType)) : null,
      tool.tags.length > 0 ? fact('Tags', tool.tags.join(', ')) : null,
    ),
    tool.workflow ? workflowSteps(tool.workflow) : null,
    h('h2', null, 'Arguments'),
    tool.arguments.length === 0 ? h('p', null, 'None.') : argumentsTable(tool.arguments),
    h('h2', null, 'What the model sees'),
    h(
      'p',
      null,
      'The same tool in each format, exactly as the whole document holds it; tokens are o200k_base counts of the compact JSON.',
    ),
    h('div', { class: 'renderings' }, tool.renderings.map(rendering)),
    renderTryIt(tool),
  )
}

/** A workflow tool's steps as an ordered list: ID, what it calls, its description. */
function workflowSteps(workflow: NonNullable<ToolPage['workflow']>): Node[] {
  return [
    h('h2', null, 'Workflow steps'),
    h(
      'ol',
      { class: 'workflow-steps' },
      workflow.steps.map((step) =>
        h(
          'li',
          null,
          h('code', null, step.stepId),
          ' → ',
          h('code', null, step.toolId ?? `workflow ${step.workflowId}`),
          step.requiresApproval ? ' (needs approval)' : '',
          step.description ? ` — ${step.description}` : '',
        ),
      ),
    ),
  ]
}

function badge(on: boolean, text: string, kind?: string): Node | null {
  return on ? h('span', { class: kind ? `badge badge-${kind}` : 'badge' }, text) : null
}

function fact(term: string, value: Node | string): Node[] {
  return [h('dt', null, term), h('dd', null, value)]
}

function argumentsTable(rows: readonly ArgumentRow[]): Node {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Arguments' },
    h(
      'table',
      { class: 'arguments' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Name', 'Goes in', 'Type', 'Required', 'Description', 'Renamed from'].map((name) =>
            h('th', { scope: 'col' }, name),
          ),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, h('code', null, row.name), row.deprecated ? ' (deprecated)' : ''),
            h('td', null, row.wholeBody ? 'body (whole)' : row.in),
            h('td', null, h('code', null, row.type)),
            h('td', null, row.required ? 'yes' : 'no'),
            h('td', { class: 'description' }, row.description ?? ''),
            h('td', null, row.renamedFrom ? h('code', null, row.renamedFrom) : ''),
          ),
        ),
      ),
    ),
  )
}

function rendering(r: Rendering): Node {
  return h(
    'section',
    { class: 'rendering', 'aria-labelledby': `r-${r.format}` },
    h('h3', { id: `r-${r.format}` }, r.label),
    h('p', { class: 'size' }, `${formatBytes(r.bytes)} · ${formatNumber(r.tokens)} tokens`),
    jsonBlock(r.definition, `${r.label} definition`),
  )
}
