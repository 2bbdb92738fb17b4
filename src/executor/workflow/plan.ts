import type { Tool, Workflow, WorkflowAction, WorkflowStep } from '../../catalog/types.js'
import { findWorkflow } from '../../catalog/workflow-tools.js'
import { errors } from '../../errors.js'
import type { DryRunOutcome, WorkflowPlan } from '../types.js'
import { type RunContext, RunError, resolveValue } from './evaluate.js'
import { stepArguments } from './step-arguments.js'
import type { WorkflowCatalog } from './workflow-executor.js'

export interface PlanDeps {
  readonly snapshot: WorkflowCatalog
  readonly approved: boolean
  readonly requiresApproval: boolean
  readonly dryRun: (tool: Tool, args: Record<string, unknown>) => Promise<DryRunOutcome>
}

const MAX_DESCENT = 8

/**
 * A workflow's dry run (issue 47): the request of the step that would run first (descending into
 * a nested workflow when the first step is one), built from the inputs exactly as the run would
 * build it, nothing sent; with every step and where each outcome may lead.
 */
export async function planOf(
  workflow: Workflow,
  inputs: Record<string, unknown>,
  deps: PlanDeps,
): Promise<DryRunOutcome> {
  let current = workflow
  let currentInputs = inputs
  let prefix = ''
  for (let depth = 0; depth <= MAX_DESCENT; depth++) {
    const step = current.steps[0]!
    const context: RunContext = {
      inputs: currentInputs,
      steps: new Map(),
      workflows: new Map(),
      components: current.components ?? {},
      where: `workflow ${current.workflowId}, step ${step.stepId}`,
    }
    try {
      if (step.workflowId) {
        const nested = findWorkflow(deps.snapshot.catalog.workflows, current, step.workflowId)
        if (!nested) throw new RunError(`${context.where}: workflow ${step.workflowId} does not exist`)
        currentInputs = Object.fromEntries(
          step.parameters.map((p) => [p.name, resolveValue(p.value, context)]),
        )
        prefix += `${step.stepId}/`
        current = nested
        continue
      }
      const tool = deps.snapshot.findTool(step.toolId!)
      if (!tool) throw new RunError(`${context.where}: tool ${step.toolId} is no longer in the catalog`)
      const preview = await deps.dryRun(tool, stepArguments(step, tool, context).arguments)
      if (preview.kind === 'refusal') return preview
      return {
        ...preview,
        approvalRequired: deps.requiresApproval,
        approved: deps.approved,
        workflow: describePlan(workflow, `${prefix}${step.stepId}`, deps),
      }
    } catch (err) {
      if (!(err instanceof RunError)) throw err
      const error = new errors.workflowRunInvalid(workflow.workflowId, `${prefix}${step.stepId}`, err.message)
      return {
        kind: 'refusal',
        status: error.statusCode ?? 422,
        body: { error: error.message, code: error.code },
        headers: {},
      }
    }
  }
  const error = new errors.workflowRunInvalid(
    workflow.workflowId,
    prefix,
    `workflows nest deeper than ${MAX_DESCENT}`,
  )
  return {
    kind: 'refusal',
    status: error.statusCode ?? 422,
    body: { error: error.message, code: error.code },
    headers: {},
  }
}

function describePlan(workflow: Workflow, firstStep: string, deps: PlanDeps): WorkflowPlan {
  const steps = workflow.steps.map((step, i) => ({
    stepId: step.stepId,
    tool: step.workflowId
      ? `workflow:${step.workflowId}`
      : (deps.snapshot.findTool(step.toolId!)?.wireName ?? step.toolId!),
    onSuccess: successors(step.onSuccess, workflow.steps[i + 1], true),
    onFailure: successors(step.onFailure, undefined, false).map((target) =>
      target === 'retry' ? step.stepId : target,
    ),
  }))
  const first = steps[0]!
  return {
    workflowId: workflow.workflowId,
    firstStep,
    mayFollow: [...new Set([...first.onSuccess, ...first.onFailure])].filter((s) => s !== 'end'),
    steps,
  }
}

/** Where a step's actions may lead; on success, to the next step too unless an unconditional action decides. */
function successors(
  actions: readonly WorkflowAction[],
  next: WorkflowStep | undefined,
  success: boolean,
): string[] {
  const targets = actions.map((action) =>
    action.type === 'end'
      ? 'end'
      : action.type === 'retry'
        ? (action.stepId ?? 'retry')
        : (action.stepId ?? `workflow:${action.workflowId}`),
  )
  const decided = actions.some((action) => action.criteria.length === 0)
  if (!decided) targets.push(success ? (next?.stepId ?? 'end') : 'end')
  return [...new Set(targets)]
}
