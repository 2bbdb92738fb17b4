import { request } from './api.js'
import { formatNumber, h, jsonBlock } from './dom.js'
import type { ToolPage, Violation } from './types.js'
import { Validator } from './vendor/json-schema/index.js'

/** The body of a dry run, tagged by kind (src/executor/preview-request.ts). */
type PreviewBody =
  | { readonly type: 'json'; readonly value: unknown }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'binary'; readonly bytes: number; readonly base64: string }
  | { readonly type: 'multipart'; readonly parts: readonly Record<string, unknown>[] }

interface DryRun {
  readonly request: {
    readonly method: string
    readonly url: string
    readonly headers: Readonly<Record<string, string>>
    readonly body: PreviewBody | null
  }
  readonly approvalRequired: boolean
  readonly approved: boolean
}

/**
 * Try it: the arguments as JSON, pre-filled with an example built from the schema, checked here
 * against the tool's input schema before anything is sent; a dry run shows the exact upstream
 * request (credentials redacted), a call shows status, time and answer.
 */
export function renderTryIt(tool: ToolPage): Node {
  const validator = new Validator(tool.inputSchema as never, '2020-12', false)
  const editor = h('textarea', {
    id: 'arguments',
    rows: 10,
    spellcheck: 'false',
    'aria-describedby': 'check',
  }) as HTMLTextAreaElement
  editor.value = JSON.stringify(tool.example, null, 2)
  const check = h('div', { id: 'check', class: 'check', role: 'status', 'aria-live': 'polite' })
  const approval = tool.safety.requiresApproval ? h('input', { id: 'approve', type: 'checkbox' }) : null
  const result = h('div', { class: 'result', 'aria-live': 'polite' })
  const buttons: HTMLButtonElement[] = []

  /** The arguments, or undefined with the reason shown: not JSON, not an object, or against the schema. */
  const checked = (): Record<string, unknown> | undefined => {
    let value: unknown
    try {
      value = JSON.parse(editor.value)
    } catch (error) {
      return fail([
        { path: '', message: `is not JSON: ${error instanceof Error ? error.message : String(error)}` },
      ])
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return fail([{ path: '', message: 'must be a JSON object of arguments' }])
    const outcome = validator.validate(value)
    if (!outcome.valid)
      return fail(
        outcome.errors
          .filter((e) => e.keyword !== 'properties' && e.keyword !== 'allOf')
          .map((e) => ({ path: e.instanceLocation.replace(/^#/, ''), message: e.error })),
      )
    check.className = 'check ok'
    check.replaceChildren('Valid against the tool’s input schema.')
    for (const button of buttons) button.disabled = false
    return value as Record<string, unknown>
  }
  const fail = (violations: readonly Violation[]): undefined => {
    check.className = 'check bad'
    check.replaceChildren(
      'Not sent: ',
      h(
        'ul',
        null,
        violations.map((v) => h('li', null, h('code', null, v.path || '(arguments)'), ' ', v.message)),
      ),
    )
    for (const button of buttons) button.disabled = true
    return undefined
  }
  editor.addEventListener('input', () => void checked())

  const send = async (dryRun: boolean) => {
    const args = checked()
    if (!args) return
    result.replaceChildren(h('p', null, dryRun ? 'Building the request…' : 'Calling…'))
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (approval?.checked) headers['x-toolgate-approval'] = tool.name
    try {
      const answer = await request<unknown>(
        `/tools/${encodeURIComponent(tool.name)}${dryRun ? '?dryRun=true' : ''}`,
        {
          method: 'POST',
          headers,
          body: JSON.stringify(args),
        },
      )
      const summary = h(
        'p',
        { class: answer.ok ? 'status-line ok' : 'status-line bad' },
        `HTTP ${answer.status} · ${formatNumber(Math.round(answer.ms))} ms`,
      )
      if (dryRun && answer.ok && isDryRun(answer.body))
        result.replaceChildren(summary, dryRunView(answer.body))
      else
        result.replaceChildren(
          summary,
          // A gateway without the dry-run mode ignores ?dryRun=true and calls: say so, show the answer.
          ...(dryRun && answer.ok
            ? [h('p', { class: 'status-line bad', role: 'alert' }, 'No dry run: this gateway sent the call.')]
            : []),
          typeof answer.body === 'string'
            ? h('pre', { class: 'json', tabindex: 0, 'aria-label': 'Answer' }, answer.body)
            : jsonBlock(answer.body, 'Answer'),
        )
    } catch (error) {
      result.replaceChildren(
        h(
          'p',
          { class: 'status-line bad', role: 'alert' },
          `The request failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
    }
  }
  const button = (text: string, dryRun: boolean) => {
    const b = h('button', { type: 'button', onclick: () => void send(dryRun) }, text)
    buttons.push(b)
    return b
  }

  const section = h(
    'section',
    { class: 'try', 'aria-labelledby': 'try-heading' },
    h('h2', { id: 'try-heading' }, 'Try it'),
    tool.exampleValid
      ? null
      : h(
          'p',
          { class: 'note' },
          'The example could not satisfy every rule of the schema (a pattern, say): edit it before sending.',
        ),
    h('label', { for: 'arguments' }, 'Arguments (JSON)'),
    editor,
    check,
    approval
      ? h(
          'p',
          null,
          approval,
          ' ',
          h('label', { for: 'approve' }, `Approve this call (sends X-Toolgate-Approval: ${tool.name})`),
        )
      : null,
    h('p', { class: 'actions' }, button('Dry run', true), ' ', button('Call', false)),
    result,
  )
  checked()
  return section
}

/** The dry-run answer `{ dryRun: true, request: { method, url, … } }`, not a tool's own answer. */
function isDryRun(body: unknown): body is DryRun {
  if (typeof body !== 'object' || body === null) return false
  const { dryRun, request } = body as { dryRun?: unknown; request?: { url?: unknown } }
  return dryRun === true && typeof request?.url === 'string'
}

function dryRunView(dry: DryRun): Node {
  const { method, url, headers, body } = dry.request
  return h(
    'div',
    { class: 'dry-run' },
    h('p', null, 'Would send, and sent nothing:'),
    h(
      'p',
      { class: 'upstream-url' },
      h('span', { class: `method method-${method.toLowerCase()}` }, method),
      ' ',
      h('code', null, url),
    ),
    dry.approvalRequired
      ? h(
          'p',
          { class: 'note' },
          dry.approved
            ? 'Needs approval: this call carries it.'
            : 'Needs approval: a real call without it is refused.',
        )
      : null,
    h(
      'table',
      { class: 'headers' },
      h('caption', null, 'Headers'),
      h(
        'tbody',
        null,
        Object.entries(headers).map(([name, value]) =>
          h('tr', null, h('th', { scope: 'row' }, name), h('td', null, h('code', null, value))),
        ),
      ),
    ),
    bodyView(body),
  )
}

function bodyView(body: PreviewBody | null): Node {
  if (body === null) return h('p', null, 'No body.')
  switch (body.type) {
    case 'json':
      return jsonBlock(body.value, 'Body')
    case 'text':
      return h('pre', { class: 'json', tabindex: 0, 'aria-label': 'Body' }, body.text)
    case 'binary':
      return h('p', null, `${formatNumber(body.bytes)} bytes of binary body.`)
    case 'multipart':
      return jsonBlock(body.parts, 'Body parts (multipart/form-data)')
  }
}
