import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import type { ExecutionScope, Executor } from '../executor/execute-tool.js'
import type { DryRunOutcome, ToolCall, ToolOutcome } from '../executor/types.js'
import { ATTR, inActiveSpan } from './tracer.js'

/**
 * The executor with one span per tool call and per dry run, named and keyed as the GenAI
 * conventions name a tool execution (`execute_tool {gen_ai.tool.name}`), its upstream attempts its
 * children. It records who called what and how it ended — never an argument value or credential.
 */
export function traceExecutor(executor: Executor): Executor {
  return {
    execute: (call, scope) => inToolSpan(call, scope, false, () => executor.execute(call, scope)),
    dryRun: (call, scope) => inToolSpan(call, scope, true, () => executor.dryRun(call, scope)),
  }
}

function inToolSpan<T extends ToolOutcome | DryRunOutcome>(
  call: ToolCall,
  scope: ExecutionScope,
  dryRun: boolean,
  run: () => Promise<T>,
): Promise<T> {
  const { tool } = call
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool.wireName,
    'gen_ai.tool.type': 'function',
    [ATTR.toolId]: tool.id,
    [ATTR.service]: scope.service.id,
    [ATTR.client]: call.client ?? 'anonymous',
    [ATTR.dryRun]: dryRun,
    [ATTR.approvalRequired]: tool.safety.requiresApproval,
    [ATTR.approvalGiven]: call.approval !== undefined,
  }
  const options = { kind: SpanKind.INTERNAL, attributes }
  return inActiveSpan(`execute_tool ${tool.wireName}`, options, async (span) => {
    const outcome = await run()
    recordOutcome(span, outcome)
    return outcome
  })
}

/** How the call ended: answered (with the upstream's status), refused (its code), or shown. */
function recordOutcome(span: Span, outcome: ToolOutcome | DryRunOutcome): void {
  if (outcome.kind === 'dry-run') {
    span.setAttribute(ATTR.outcome, outcome.kind)
    return
  }
  if (outcome.kind === 'answer')
    span.setAttributes({ [ATTR.outcome]: outcome.kind, 'http.response.status_code': outcome.status })
  else {
    const { violations, code } = outcome.body
    span.setAttributes({
      [ATTR.outcome]: outcome.kind,
      'http.response.status_code': outcome.status,
      [ATTR.validationFailures]: Array.isArray(violations) ? violations.length : 0,
      'error.type': code,
    })
  }
  if (outcome.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
}
