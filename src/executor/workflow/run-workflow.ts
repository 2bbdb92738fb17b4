import { setTimeout as sleep } from 'node:timers/promises'
import type { JsonSchema, Tool, Workflow, WorkflowAction, WorkflowStep } from '../../catalog/types.js'
import { isRecord } from '../../util/is-record.js'
import type { ToolOutcome } from '../types.js'
import { allHold } from './criteria.js'
import {
  ABSENT,
  type RunContext,
  RunError,
  readOutput,
  resolveValue,
  responseOf,
  type StepResponse,
  type WorkflowRan,
} from './evaluate.js'
import { stepArguments } from './step-arguments.js'

/** One step as the result's trace shows it. */
export interface TraceEntry {
  /** The step ID; a nested workflow's steps are `<step>/<nested step>`. */
  readonly step: string
  /** The tool's wire name, or `workflow:<workflowId>` for a nested workflow. */
  readonly tool: string
  /** The HTTP status (the upstream's, or the gateway's refusal), null when nothing answered. */
  readonly status: number | null
  readonly outcome: 'success' | 'failure'
  readonly durationMs: number
  /** The answer's body, only when the operator allows bodies in traces. */
  readonly body?: unknown
}

/** A call that changed something upstream: a step that is not read-only and got an answer. */
export interface SideEffect {
  readonly step: string
  readonly tool: string
  readonly status: number
}

export interface RunLimits {
  /** Steps executed per run, nested workflows and retries included: goto loops end here. */
  readonly maxSteps: number
  /** How deep workflows may nest (steps and dependsOn). */
  readonly maxDepth: number
  /** Whether trace entries carry the steps' answer bodies. */
  readonly traceBodies: boolean
}

/** What the runner needs from the gateway: the catalog's tools and workflows, and one tool call. */
export interface RunDeps {
  readonly limits: RunLimits
  readonly findTool: (toolId: string) => Tool | undefined
  readonly findWorkflow: (from: Workflow, workflowId: string) => Workflow | undefined
  /** One call through the executor (validation, credentials, breaker, redaction, metrics). */
  readonly call: (tool: Tool, args: Record<string, unknown>) => Promise<ToolOutcome>
  /** The request URL a call would use (dry run), only asked when a step reads `$url`. */
  readonly urlOf: (tool: Tool, args: Record<string, unknown>) => Promise<string | undefined>
  readonly signal: AbortSignal
}

export type RunEnd =
  | { readonly ok: true; readonly outputs: Record<string, unknown> }
  | {
      readonly ok: false
      readonly reason: 'step-failed' | 'invalid' | 'step-limit' | 'deadline'
      readonly step: string
      readonly message: string
      readonly status?: number | null
      /** The upstream's (or gateway's) answer to the failed step. */
      readonly error?: unknown
    }

/** The mutable record of one run, shared by nested workflows. */
export interface RunRecord {
  executed: number
  readonly trace: TraceEntry[]
  readonly sideEffects: SideEffect[]
}

/** Outcome of one step, before actions are chosen. */
interface StepRun {
  readonly success: boolean
  readonly response: StepResponse
  readonly outputs?: Record<string, unknown>
  /** The run ends with this, whatever the actions say (deadline, step bound, invalid nested run). */
  readonly end?: RunEnd
  /** A nested workflow's failed step: what the run ends with when no action takes the failure. */
  readonly failure?: RunEnd
}

/**
 * Runs an Arazzo 1.0.1 workflow: steps in order, each through the executor; successCriteria
 * decide success; onSuccess / onFailure actions (end, goto, retry with retryAfter and
 * retryLimit) choose what follows; outputs are gathered per step and for the workflow. The
 * step bound and the caller's deadline (signal) end every loop; a failed step ends the run.
 */
export async function runWorkflow(
  workflow: Workflow,
  inputs: Record<string, unknown>,
  deps: RunDeps,
  record: RunRecord,
  depth = 0,
  prefix = '',
): Promise<RunEnd> {
  inputs = withDefaults(workflow.inputs, inputs)
  const steps = new Map<string, Record<string, unknown>>()
  const workflows = new Map<string, WorkflowRan>()
  const base = { inputs, steps, workflows, components: workflow.components ?? {} }
  for (const id of workflow.dependsOn) {
    const dependency = deps.findWorkflow(workflow, id)
    const at = `${prefix}dependsOn:${id}`
    if (!dependency)
      return invalid(
        at,
        `workflow ${workflow.workflowId}: dependsOn names workflow ${id}, which does not exist`,
      )
    if (depth + 1 > deps.limits.maxDepth)
      return invalid(at, `workflows nest deeper than ${deps.limits.maxDepth}`)
    const end = await runWorkflow(dependency, inputs, deps, record, depth + 1, `${at}/`)
    if (!end.ok) return end
    workflows.set(id, { inputs: withDefaults(dependency.inputs, inputs), outputs: end.outputs })
  }
  const retries = new Map<WorkflowAction, number>()
  let index = 0
  while (index < workflow.steps.length) {
    const step = workflow.steps[index]!
    const name = `${prefix}${step.stepId}`
    if (deps.signal.aborted)
      return { ok: false, reason: 'deadline', step: name, message: 'the deadline passed' }
    if (++record.executed > deps.limits.maxSteps)
      return {
        ok: false,
        reason: 'step-limit',
        step: name,
        message: `more than ${deps.limits.maxSteps} steps`,
      }
    const context: RunContext = { ...base, where: `workflow ${workflow.workflowId}, step ${step.stepId}` }
    let run: StepRun
    try {
      run = await runStep(workflow, step, context, deps, record, depth, name)
      if (run.end && !run.end.ok) return run.end
      if (deps.signal.aborted)
        return { ok: false, reason: 'deadline', step: name, message: 'the deadline passed' }
      const answered = { ...context, response: run.response }
      if (run.success) {
        steps.set(step.stepId, run.outputs ?? {})
        const action = firstAction(step.onSuccess, answered)
        if (action?.type === 'end') break
        if (action?.type === 'goto') {
          const next = await goTo(action, workflow, inputs, deps, record, depth, name)
          if (typeof next !== 'number')
            return next.ok ? { ok: true, outputs: gather(workflow, base, next) } : next
          index = next
        } else index++
        continue
      }
      const action = firstAction(step.onFailure, answered)
      if (action?.type === 'retry' && (retries.get(action) ?? 0) < (action.retryLimit ?? 1)) {
        retries.set(action, (retries.get(action) ?? 0) + 1)
        if (action.retryAfter)
          await sleep(action.retryAfter * 1000, undefined, { signal: deps.signal }).catch(() => undefined)
        index = action.stepId ? indexOf(workflow, action.stepId) : index
        continue
      }
      if (action?.type === 'goto') {
        const next = await goTo(action, workflow, inputs, deps, record, depth, name)
        if (typeof next !== 'number')
          return next.ok ? { ok: true, outputs: gather(workflow, base, next) } : next
        index = next
        continue
      }
      if (run.failure && action?.type !== 'end') return run.failure
      return failed(
        name,
        run.response,
        action?.type === 'end' ? `onFailure action ${action.name} ends the run` : undefined,
      )
    } catch (err) {
      if (err instanceof RunError) return invalid(name, err.message)
      throw err
    }
  }
  try {
    return { ok: true, outputs: gather(workflow, base) }
  } catch (err) {
    if (err instanceof RunError) return invalid(`${prefix}outputs`, err.message)
    throw err
  }
}

async function runStep(
  workflow: Workflow,
  step: WorkflowStep,
  context: RunContext,
  deps: RunDeps,
  record: RunRecord,
  depth: number,
  name: string,
): Promise<StepRun> {
  const started = performance.now()
  if (step.workflowId) {
    const nested = deps.findWorkflow(workflow, step.workflowId)
    if (!nested) throw new RunError(`${context.where}: workflow ${step.workflowId} does not exist`)
    if (depth + 1 > deps.limits.maxDepth)
      throw new RunError(`${context.where}: workflows nest deeper than ${deps.limits.maxDepth}`)
    const inputs = Object.fromEntries(step.parameters.map((p) => [p.name, resolveValue(p.value, context)]))
    const end = await runWorkflow(nested, inputs, deps, record, depth + 1, `${name}/`)
    const status = end.ok ? 200 : (end.status ?? null)
    record.trace.push({
      step: name,
      tool: `workflow:${nested.workflowId}`,
      status,
      outcome: end.ok ? 'success' : 'failure',
      durationMs: since(started),
    })
    if (!end.ok && end.reason !== 'step-failed')
      return { success: false, response: emptyResponse(status), end }
    const response: StepResponse = {
      status,
      headers: {},
      body: () => ({ ok: true, value: end.ok ? end.outputs : end.error }),
    }
    const outputs = end.ok ? end.outputs : {}
    const success = end.ok && allHold(step.successCriteria, { ...context, response, outputs })
    if (!success) return { success, response, ...(end.ok ? {} : { failure: end }) }
    return { success, response, outputs: stepOutputs(step, { ...context, response, outputs }, outputs) }
  }
  const tool = deps.findTool(step.toolId!)
  if (!tool) throw new RunError(`${context.where}: tool ${step.toolId} is no longer in the catalog`)
  const { arguments: args, request } = stepArguments(step, tool, context)
  const url = readsUrl(step) ? await deps.urlOf(tool, args) : undefined
  const outcome = await deps.call(tool, args)
  const response = responseOf(outcome, {
    method: tool.method.toUpperCase(),
    request,
    ...(url ? { url } : {}),
  })
  const answered = { ...context, response }
  const success =
    outcome.kind === 'answer' &&
    (step.successCriteria.length > 0 ? allHold(step.successCriteria, answered) : outcome.status < 400)
  if (outcome.kind === 'answer' && !tool.safety.readOnly)
    record.sideEffects.push({ step: name, tool: tool.wireName, status: outcome.status })
  const body = deps.limits.traceBodies ? response.body() : undefined
  record.trace.push({
    step: name,
    tool: tool.wireName,
    status: outcome.status,
    outcome: success ? 'success' : 'failure',
    durationMs: since(started),
    ...(body ? { body: body.ok ? body.value : (body.text ?? null) } : {}),
  })
  return { success, response, ...(success ? { outputs: stepOutputs(step, answered) } : {}) }
}

/** The first action whose criteria all hold (an action without criteria always applies). */
function firstAction(actions: readonly WorkflowAction[], context: RunContext): WorkflowAction | undefined {
  return actions.find((action) => allHold(action.criteria, context))
}

/** A goto: the index of the step, or the end of the nested workflow it transfers to. */
async function goTo(
  action: WorkflowAction,
  workflow: Workflow,
  inputs: Record<string, unknown>,
  deps: RunDeps,
  record: RunRecord,
  depth: number,
  name: string,
): Promise<number | RunEnd> {
  if (action.stepId) return indexOf(workflow, action.stepId)
  const target = deps.findWorkflow(workflow, action.workflowId!)
  if (!target)
    return invalid(name, `action ${action.name} goes to workflow ${action.workflowId}, which does not exist`)
  if (depth + 1 > deps.limits.maxDepth)
    return invalid(name, `workflows nest deeper than ${deps.limits.maxDepth}`)
  return runWorkflow(target, inputs, deps, record, depth + 1, `${name}→${target.workflowId}/`)
}

function indexOf(workflow: Workflow, stepId: string): number {
  const index = workflow.steps.findIndex((step) => step.stepId === stepId)
  if (index === -1) throw new RunError(`workflow ${workflow.workflowId}: step ${stepId} does not exist`)
  return index
}

/** A step's declared outputs; with none, a nested workflow step passes its workflow's outputs on. */
function stepOutputs(
  step: WorkflowStep,
  context: RunContext,
  fallback: Record<string, unknown> = {},
): Record<string, unknown> {
  const entries = Object.entries(step.outputs)
  if (entries.length === 0) return fallback
  const outputs: Record<string, unknown> = {}
  for (const [name, text] of entries) {
    const value = readOutput(text, context)
    if (value !== ABSENT) outputs[name] = value
  }
  return outputs
}

/** The workflow's outputs; one whose step did not run (a branch not taken) is left out. */
function gather(
  workflow: Workflow,
  base: Omit<RunContext, 'where'>,
  transferred?: RunEnd,
): Record<string, unknown> {
  const context: RunContext = {
    ...base,
    where: `workflow ${workflow.workflowId}, outputs`,
    ...(transferred?.ok ? { outputs: transferred.outputs } : {}),
  }
  const outputs: Record<string, unknown> = {}
  for (const [name, text] of Object.entries(workflow.outputs)) {
    const value = readOutput(text, context)
    if (value !== ABSENT) outputs[name] = value
  }
  return outputs
}

/** Top-level `default`s of the inputs schema, for inputs the caller left out. */
function withDefaults(schema: JsonSchema, given: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {}
  const inputs: Record<string, unknown> = { ...given }
  for (const [name, property] of Object.entries(properties))
    if (!Object.hasOwn(inputs, name) && isRecord(property) && 'default' in property)
      inputs[name] = property.default
  return inputs
}

function failed(step: string, response: StepResponse, why?: string): RunEnd {
  const body = response.body()
  return {
    ok: false,
    reason: 'step-failed',
    step,
    status: response.status,
    message: why ?? (response.status === null ? 'no answer' : `status ${response.status}`),
    error: body.ok ? body.value : (body.text ?? null),
  }
}

function invalid(step: string, message: string): RunEnd {
  return { ok: false, reason: 'invalid', step, message }
}

function emptyResponse(status: number | null): StepResponse {
  return { status, headers: {}, body: () => ({ ok: false, why: 'no answer' }) }
}

/** Whether any of the step's expressions reads `$url` (which costs building the request's URL): once per step. */
function readsUrl(step: WorkflowStep): boolean {
  let reads = stepsReadingUrl.get(step)
  if (reads === undefined) {
    reads = JSON.stringify(step).includes('$url')
    stepsReadingUrl.set(step, reads)
  }
  return reads
}

const stepsReadingUrl = new WeakMap<WorkflowStep, boolean>()

function since(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10
}
