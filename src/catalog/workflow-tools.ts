import { isRecord } from '../util/is-record.js'
import { unescapePointerToken } from '../util/json-pointer.js'
import { workflowStem } from './build-workflows.js'
import type { ToolDraft } from './derive-service.js'
import type { ProblemSink } from './problems.js'
import type { JsonSchema, Safety, Service, ToolOutput, Workflow, WorkflowStepSummary } from './types.js'
import { snakeCase } from './wire-name.js'

/** A workflow tool's result: the workflow's outputs and the trace of its steps (docs/executor.md). */
const TRACE_SCHEMA: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      step: { type: 'string' },
      tool: { type: 'string' },
      status: { type: ['integer', 'null'] },
      outcome: { type: 'string' },
      durationMs: { type: 'number' },
    },
  },
}

/**
 * Issue 47: every workflow whose steps can all be called becomes a tool of a service named after
 * its Arazzo file (`support.arazzo.yaml` → service `support`, tool `support:escalateUnpaidTicket`,
 * wire name `support_escalate_unpaid_ticket`). Its safety is its steps' (nested workflows
 * included): destructive if any is, read-only and idempotent only if all are, approval if any
 * step needs it — asked once for the run.
 */
export function workflowTools(
  workflows: readonly Workflow[],
  tools: readonly ToolDraft[],
  services: readonly Service[],
  titles: ReadonlyMap<string, string>,
  sinkFor: (sourceId: string) => ProblemSink,
): { services: Service[]; tools: ToolDraft[] } {
  const byId = new Map(tools.map((tool) => [tool.id, tool]))
  const taken = new Set(services.map((service) => service.id))
  const clashing = new Set<string>()
  const out: { services: Service[]; tools: ToolDraft[] } = { services: [], tools: [] }
  for (const workflow of workflows) {
    const stem = workflowStem(workflow.sourceId)
    if (taken.has(stem)) {
      if (!clashing.has(stem))
        sinkFor(workflow.sourceId).warn(
          'workflow-tool-clash',
          '',
          `service id ${stem} is already taken by a spec; this file's workflows are not offered as tools (rename the file)`,
        )
      clashing.add(stem)
      continue
    }
    if (!out.services.some((service) => service.id === stem))
      out.services.push({
        id: stem,
        alias: stem,
        sourceId: workflow.sourceId,
        title: titles.get(workflow.sourceId) ?? stem,
        servers: [],
        securitySchemes: {},
      })
    const steps = stepTools(workflow, workflows, byId)
    if (!steps) continue
    out.tools.push(workflowTool(workflow, stem, steps, byId))
  }
  return out
}

/** Every tool the workflow can call (nested workflows followed), or undefined when one is missing. */
function stepTools(
  workflow: Workflow,
  workflows: readonly Workflow[],
  byId: ReadonlyMap<string, ToolDraft>,
): ToolDraft[] | undefined {
  const found: ToolDraft[] = []
  const seen = new Set<string>()
  const queue = [workflow]
  while (queue.length > 0) {
    const current = queue.pop()!
    if (seen.has(current.id)) continue
    seen.add(current.id)
    const nested = [
      ...current.dependsOn,
      ...current.steps.flatMap((s) => (s.workflowId ? [s.workflowId] : [])),
    ]
    for (const id of nested) {
      const target = findWorkflow(workflows, current, id)
      if (!target) return undefined
      queue.push(target)
    }
    for (const step of current.steps) {
      if (!step.toolId) continue
      const tool = byId.get(step.toolId)
      if (!tool || tool.ignored) return undefined
      found.push(tool)
    }
  }
  return found
}

/** A workflow named by a step or dependsOn: of the same file first, else of any. */
export function findWorkflow(
  workflows: readonly Workflow[],
  from: Pick<Workflow, 'sourceId'>,
  workflowId: string,
): Workflow | undefined {
  return (
    workflows.find((w) => w.sourceId === from.sourceId && w.workflowId === workflowId) ??
    workflows.find((w) => w.workflowId === workflowId)
  )
}

function workflowTool(
  workflow: Workflow,
  stem: string,
  steps: readonly ToolDraft[],
  byId: ReadonlyMap<string, ToolDraft>,
): ToolDraft {
  const safety: Safety = {
    readOnly: steps.every((tool) => tool.safety.readOnly),
    destructive: steps.some((tool) => tool.safety.destructive),
    idempotent: steps.every((tool) => tool.safety.idempotent),
    openWorld: true,
    requiresApproval: steps.some((tool) => tool.safety.requiresApproval),
  }
  const summaries: WorkflowStepSummary[] = workflow.steps.map((step) => ({
    stepId: step.stepId,
    ...(step.toolId ? { toolId: step.toolId } : {}),
    ...(step.workflowId ? { workflowId: step.workflowId } : {}),
    ...(step.description ? { description: step.description } : {}),
    requiresApproval: step.toolId ? byId.get(step.toolId)?.safety.requiresApproval === true : false,
  }))
  // No words of its own in the path: the name says them once (search counts each field).
  const path = '/workflows'
  return {
    id: workflow.id,
    serviceId: stem,
    operationId: workflow.workflowId,
    method: 'post',
    rawPath: path,
    path,
    title: workflow.summary ?? workflow.workflowId,
    description: describe(workflow, steps),
    tags: ['workflow'],
    group: 'workflows',
    commandName: snakeCase(workflow.workflowId).replaceAll('_', '-'),
    aliases: [],
    hidden: false,
    ignored: false,
    deprecated: false,
    parameters: [],
    auth: [],
    safety,
    inputSchema: workflow.inputs,
    structuredOutput: outputOf(workflow, byId),
    binding: { arguments: {} },
    sourceId: workflow.sourceId,
    pointer: `/workflows/${workflow.workflowId}`,
    workflow: {
      id: workflow.id,
      steps: summaries,
      toolIds: [...new Set(steps.map((tool) => tool.id))].sort(),
    },
  }
}

/** Summary and description; the steps that need the one approval of the run, when any do. */
function describe(workflow: Workflow, tools: readonly ToolDraft[]): string {
  const text = [workflow.summary, workflow.description?.trim()].filter(Boolean).join('\n\n')
  const approvals = [...new Set(tools.filter((tool) => tool.safety.requiresApproval).map((tool) => tool.id))]
  const approval =
    approvals.length > 0 ? ` One approval for the whole run covers ${approvals.join(', ')}.` : ''
  return `${text || `Runs the workflow ${workflow.workflowId}.`}${approval}`
}

/** `{ outputs, trace }`; an output read by `$response.body#/pointer` from a typed step takes that type. */
function outputOf(workflow: Workflow, byId: ReadonlyMap<string, ToolDraft>): ToolOutput {
  const properties: Record<string, JsonSchema> = {}
  for (const [name, expression] of Object.entries(workflow.outputs))
    properties[name] = typedOutput(workflow, expression, byId) ?? {}
  return {
    status: '200',
    contentType: 'application/json',
    schema: {
      type: 'object',
      properties: { outputs: { type: 'object', properties }, trace: TRACE_SCHEMA },
    },
  }
}

function typedOutput(
  workflow: Workflow,
  expression: string,
  byId: ReadonlyMap<string, ToolDraft>,
): JsonSchema | undefined {
  const match = /^\$steps\.([^.]+)\.outputs\.([^.#]+)$/.exec(expression)
  const step = match && workflow.steps.find((s) => s.stepId === match[1])
  const source = step?.outputs[match![2]!]
  const tool = step?.toolId ? byId.get(step.toolId) : undefined
  const pointer = source && /^\$response\.body#(\/.*)$/.exec(source)?.[1]
  if (!tool || !pointer || !('schema' in tool.structuredOutput)) return undefined
  let schema: unknown = tool.structuredOutput.schema
  for (const token of pointer.slice(1).split('/').map(unescapePointerToken)) {
    const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : undefined
    if (!properties || !Object.hasOwn(properties, token)) return undefined
    schema = properties[token]
  }
  return isRecord(schema) ? schema : undefined
}
