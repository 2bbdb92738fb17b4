import type { PolicyRule } from '../../catalog/options.js'
import type { Catalog, Service, Tool, Workflow } from '../../catalog/types.js'
import { findWorkflow } from '../../catalog/workflow-tools.js'
import { errors } from '../../errors.js'
import { globToRegExp, matchesAnyGlob } from '../../util/glob.js'
import { checkArgumentValues, DEFAULT_ARGUMENT_DEPTH } from '../check-argument-values.js'
import { type ExecutionScope, type Executor, invalidArguments } from '../execute-tool.js'
import { refusal } from '../refusal.js'
import type { Refusal, ToolCall, ToolOutcome } from '../types.js'
import type { ArgumentValidator } from '../validate-arguments.js'
import { planOf } from './plan.js'
import { type RunEnd, type RunLimits, type RunRecord, runWorkflow } from './run-workflow.js'

/** What the runner reads of the catalog version a call started on. */
export interface WorkflowCatalog {
  readonly catalog: Catalog
  findTool(name: string): Tool | undefined
  serviceOf(tool: Tool): Service
  readonly validator: ArgumentValidator
}

export interface WorkflowSettings extends RunLimits {
  readonly deadlineMs: number
}

export const DEFAULT_WORKFLOW_SETTINGS: WorkflowSettings = {
  maxSteps: 50,
  maxDepth: 4,
  deadlineMs: 60_000, // 60 s
  traceBodies: false,
}

export interface WorkflowExecutorDeps {
  /** The catalog version in force when a run starts; the whole run uses it. */
  readonly current: () => WorkflowCatalog
  readonly policies: readonly PolicyRule[]
  readonly settings: WorkflowSettings
  readonly argumentDepth?: number
}

/**
 * An executor that also runs workflow tools (issue 47): a tool with `workflow` set is run step by
 * step, each step a call of `inner` — validation, credentials, breaker, deadline, redaction and
 * metrics as any tool call — and every other tool goes to `inner` unchanged.
 */
export function withWorkflows(inner: Executor, deps: WorkflowExecutorDeps): Executor {
  const approvedGlobs = deps.policies.filter((p) => p.approved).flatMap((p) => p.tools.map(globToRegExp))
  const granted = (call: ToolCall) =>
    call.approval === call.tool.wireName ||
    call.approval === call.tool.id ||
    matchesAnyGlob(call.tool.id, approvedGlobs) ||
    matchesAnyGlob(call.tool.wireName, approvedGlobs)

  /** The workflow and its inputs (defaults applied), or the refusal of bad arguments. */
  const begin = (call: ToolCall, scope: ExecutionScope, snapshot: WorkflowCatalog) => {
    const { tool } = call
    const workflow = snapshot.catalog.workflows.find((w) => w.id === tool.workflow!.id)
    const unusable = checkArgumentValues(call.arguments, deps.argumentDepth ?? DEFAULT_ARGUMENT_DEPTH)
    if (unusable.length > 0) return invalidArguments(tool, unusable)
    const checked = scope.validator.check(tool, call.arguments)
    if (!checked.ok) return invalidArguments(tool, checked.violations)
    if (!workflow)
      return invalidArguments(tool, [{ path: '/', message: 'the workflow is no longer in the catalog' }])
    return { workflow, inputs: { ...checked.arguments } }
  }

  return {
    async execute(call, scope) {
      if (!call.tool.workflow) return inner.execute(call, scope)
      const snapshot = deps.current()
      const started = begin(call, scope, snapshot)
      if ('kind' in started) return started
      const approved = granted(call)
      if (call.tool.safety.requiresApproval && !approved) return approvalRefusal(call.tool)
      const deadline = AbortSignal.timeout(deps.settings.deadlineMs)
      const signal = call.signal ? AbortSignal.any([call.signal, deadline]) : deadline
      const record: RunRecord = { executed: 0, trace: [], sideEffects: [] }
      const stepCall = (tool: Tool, args: Record<string, unknown>): ToolCall => ({
        ...call,
        tool,
        arguments: args,
        signal,
        // One approval for the run: given (or granted by policy) for the workflow, it covers its steps.
        ...(approved ? { approval: tool.wireName } : { approval: undefined }),
      })
      const scopeOf = (tool: Tool) => ({ service: snapshot.serviceOf(tool), validator: snapshot.validator })
      const end = await runWorkflow(
        started.workflow,
        started.inputs,
        {
          limits: deps.settings,
          findTool: (id) => snapshot.findTool(id),
          findWorkflow: (from, id) => findWorkflow(snapshot.catalog.workflows, from, id),
          call: (tool, args) => inner.execute(stepCall(tool, args), scopeOf(tool)),
          urlOf: async (tool, args) => {
            const preview = await inner.dryRun(stepCall(tool, args), scopeOf(tool))
            return preview.kind === 'dry-run' ? preview.request.url : undefined
          },
          signal,
        },
        record,
      )
      return end.ok
        ? answer(end.outputs, record)
        : ended(call.tool, started.workflow, end, record, deps.settings)
    },

    async dryRun(call, scope) {
      if (!call.tool.workflow) return inner.dryRun(call, scope)
      const snapshot = deps.current()
      const started = begin(call, scope, snapshot)
      if ('kind' in started) return started
      return planOf(started.workflow, started.inputs, {
        snapshot,
        approved: granted(call),
        requiresApproval: call.tool.safety.requiresApproval,
        dryRun: (tool, args) =>
          inner.dryRun(
            { ...call, tool, arguments: args, ...(granted(call) ? { approval: tool.wireName } : {}) },
            { service: snapshot.serviceOf(tool), validator: snapshot.validator },
          ),
      })
    },
  }
}

function approvalRefusal(tool: Tool): Refusal {
  const steps = (tool.workflow?.steps ?? [])
    .filter((s) => s.requiresApproval)
    .map((s) => `${s.stepId} (${s.toolId})`)
  const error = new errors.workflowApprovalRequired(
    tool.wireName,
    steps.join(', ') || 'a nested workflow',
    tool.wireName,
  )
  return refusal(error, tool, { steps })
}

function answer(outputs: Record<string, unknown>, record: RunRecord): ToolOutcome {
  const body = { outputs, trace: record.trace, sideEffects: record.sideEffects }
  return {
    kind: 'answer',
    status: 200,
    body: { type: 'json', bytes: Buffer.from(JSON.stringify(body)), contentType: 'application/json' },
    headers: {},
    origin: 'workflow',
    attempts: 1,
  }
}

function ended(
  tool: Tool,
  workflow: Workflow,
  end: Exclude<RunEnd, { ok: true }>,
  record: RunRecord,
  settings: WorkflowSettings,
): Refusal {
  const error =
    end.reason === 'step-failed'
      ? new errors.workflowStepFailed(workflow.workflowId, end.step, end.message)
      : end.reason === 'step-limit'
        ? new errors.workflowStepLimit(workflow.workflowId, String(settings.maxSteps))
        : end.reason === 'deadline'
          ? new errors.workflowDeadline(workflow.workflowId, String(settings.deadlineMs), end.step)
          : new errors.workflowRunInvalid(workflow.workflowId, end.step, end.message)
  return refusal(error, tool, {
    step: end.step,
    ...(end.status !== undefined ? { status: end.status } : {}),
    ...(end.error !== undefined ? { upstreamError: end.error } : {}),
    trace: record.trace,
    sideEffects: record.sideEffects,
  })
}
