import { posix } from 'node:path'
import { isRecord } from '../util/is-record.js'
import { pointerOf, unescapePointerToken } from '../util/json-pointer.js'
import type { LoadedSource } from './load-sources.js'
import { createSchemaContext } from './normalize-schema.js'
import type { ProblemSink } from './problems.js'
import type { JsonSchema, Service, Tool, Workflow, WorkflowStep } from './types.js'
import { checkReferences } from './workflow-references.js'
import { countingSink, readOutputs, readStepDetails, type StepContext } from './workflow-steps.js'

type ToolRef = Pick<Tool, 'id' | 'serviceId' | 'operationId' | 'method' | 'rawPath' | 'ignored'>

interface Resolution {
  readonly source: LoadedSource
  readonly sources: ReadonlyMap<string, Service>
  readonly tools: readonly ToolRef[]
  readonly sink: ProblemSink
}

/**
 * Arazzo workflows → workflow IDs with step IDs bound to tool IDs (seed 003). A step naming a
 * missing or ignored operation fails the whole workflow file (seed 003: "catalog build fails";
 * SPEC §1: that workflow source fails), with a message naming the workflow, step and operation.
 */
export function buildWorkflows(
  source: LoadedSource,
  services: readonly Service[],
  tools: readonly ToolRef[],
  sink: ProblemSink,
): Workflow[] | undefined {
  const document = source.document
  if (!Array.isArray(document.workflows) || document.workflows.length === 0) {
    sink.error('workflow-invalid', '/workflows', 'an Arazzo document needs a non-empty workflows list')
    return undefined
  }
  const resolution: Resolution = { source, sources: sourceServices(source, services, sink), tools, sink }
  const workflowIds = new Set(document.workflows.filter(isRecord).map((w) => w.workflowId))
  const workflows = document.workflows.map((raw, index) => buildWorkflow(raw, index, workflowIds, resolution))
  if (workflows.some((workflow) => workflow === undefined)) return undefined
  return workflows as Workflow[]
}

/** `sourceDescriptions[].name` → the service loaded from that file (URLs are relative to this file). */
function sourceServices(
  source: LoadedSource,
  services: readonly Service[],
  sink: ProblemSink,
): Map<string, Service> {
  const map = new Map<string, Service>()
  const descriptions = Array.isArray(source.document.sourceDescriptions)
    ? source.document.sourceDescriptions
    : []
  descriptions.filter(isRecord).forEach((description, index) => {
    if (typeof description.name !== 'string' || typeof description.url !== 'string') return
    if (description.type === 'arazzo') return
    const file = posix.normalize(posix.join(posix.dirname(source.sourceId), description.url))
    const service = services.find((s) => s.sourceId === file || s.id === description.url)
    if (service) map.set(description.name, service)
    else
      sink.warn(
        'workflow-source-unknown',
        pointerOf('sourceDescriptions', index),
        `source description ${description.name} (${description.url}) is not a loaded spec`,
      )
  })
  return map
}

function buildWorkflow(
  raw: unknown,
  index: number,
  workflowIds: Set<unknown>,
  resolution: Resolution,
): Workflow | undefined {
  const pointer = pointerOf('workflows', index)
  const { sink, source } = resolution
  if (
    !isRecord(raw) ||
    typeof raw.workflowId !== 'string' ||
    !Array.isArray(raw.steps) ||
    raw.steps.length === 0
  ) {
    sink.error('workflow-invalid', pointer, 'a workflow needs a workflowId and a non-empty steps list')
    return undefined
  }
  const workflowId = raw.workflowId
  const counted = countingSink(sink)
  const components = isRecord(source.document.components) ? source.document.components : {}
  const context: StepContext = { sink: counted.sink, components, where: `workflow ${workflowId}` }
  const steps = raw.steps.map((step, i) =>
    buildStep(step, `${pointer}/steps/${i}`, workflowId, workflowIds, { ...resolution, sink: counted.sink }),
  )
  const outputs = readOutputs(raw.outputs, `${pointer}/outputs`, context)
  const inputs = readInputs(raw.inputs, `${pointer}/inputs`, source, context)
  if (counted.errors() > 0) return undefined
  const workflow: Workflow = {
    id: `${workflowStem(source.sourceId)}:${workflowId}`,
    workflowId,
    sourceId: source.sourceId,
    ...(typeof raw.summary === 'string' ? { summary: raw.summary } : {}),
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    inputs,
    dependsOn: Array.isArray(raw.dependsOn)
      ? raw.dependsOn.map((id) => String(id).replace(/^\$sourceDescriptions\.[^.]+\./, ''))
      : [],
    steps: steps as WorkflowStep[],
    outputs,
    ...(Object.keys(components).length > 0 ? { components } : {}),
  }
  return checkReferences(workflow, pointer, workflowIds, sink) ? workflow : undefined
}

/** `support.arazzo.yaml` → `support`: the prefix of its workflow IDs and its tools' service. */
export function workflowStem(sourceId: string): string {
  return sourceId.replace(/(\.arazzo)?\.(ya?ml|json)$/i, '')
}

/** The workflow's inputs schema, `$ref`s into the document's components resolved (normalized as tool inputs). */
function readInputs(raw: unknown, pointer: string, source: LoadedSource, context: StepContext): JsonSchema {
  if (raw === undefined) return { type: 'object', properties: {} }
  if (!isRecord(raw)) {
    context.sink.error('workflow-invalid', pointer, `${context.where}: inputs is a JSON Schema object`)
    return {}
  }
  const schemas = createSchemaContext(source.document, context.sink)
  const normalized = schemas.normalize(raw, pointer)
  const defs = schemas.defsFor(normalized.defs)
  const schema = Object.keys(defs).length > 0 ? { ...normalized.schema, $defs: defs } : normalized.schema
  if (schema.type !== 'object') {
    context.sink.error('workflow-invalid', pointer, `${context.where}: inputs must be an object schema`)
  }
  return schema
}

function buildStep(
  raw: unknown,
  pointer: string,
  workflowId: string,
  workflowIds: Set<unknown>,
  resolution: Resolution,
): WorkflowStep | undefined {
  const { sink } = resolution
  if (!isRecord(raw) || typeof raw.stepId !== 'string') {
    sink.error('workflow-invalid', pointer, `a step of workflow ${workflowId} has no stepId`)
    return undefined
  }
  const stepId = raw.stepId
  if (typeof raw.workflowId === 'string') {
    const target = raw.workflowId.replace(/^\$sourceDescriptions\.[^.]+\./, '')
    if (raw.workflowId.startsWith('$sourceDescriptions.') || workflowIds.has(target)) {
      const details = readStepDetails(raw, pointer, stepContext(workflowId, stepId, resolution))
      return details && { stepId, workflowId: target, ...details }
    }
    sink.error(
      'workflow-invalid',
      pointer,
      `workflow ${workflowId}, step ${stepId}: workflow ${raw.workflowId} does not exist`,
    )
    return undefined
  }
  const operation =
    typeof raw.operationId === 'string'
      ? raw.operationId
      : typeof raw.operationPath === 'string'
        ? raw.operationPath
        : undefined
  if (!operation) {
    sink.error(
      'workflow-invalid',
      pointer,
      `workflow ${workflowId}, step ${stepId}: a step needs operationId, operationPath or workflowId`,
    )
    return undefined
  }
  const found =
    typeof raw.operationId === 'string'
      ? byOperationId(operation, resolution)
      : byOperationPath(operation, resolution)
  if (!found) {
    sink.error(
      'workflow-operation-missing',
      pointer,
      `workflow ${workflowId}, step ${stepId}: operation ${operation} does not exist in any loaded spec`,
    )
    return undefined
  }
  if (found.ignored) {
    sink.error(
      'workflow-operation-ignored',
      pointer,
      `workflow ${workflowId}, step ${stepId}: operation ${operation} (${found.id}) is marked x-cli-ignore`,
    )
    return undefined
  }
  const details = readStepDetails(raw, pointer, stepContext(workflowId, stepId, resolution))
  return details && { stepId, toolId: found.id, ...details }
}

function stepContext(workflowId: string, stepId: string, { source, sink }: Resolution): StepContext {
  const components = isRecord(source.document.components) ? source.document.components : {}
  return { sink, components, where: `workflow ${workflowId}, step ${stepId}` }
}

/** `getTicket` (searched in every source description) or `$sourceDescriptions.billing.getInvoice`. */
function byOperationId(operation: string, { sources, tools }: Resolution): ToolRef | undefined {
  const qualified = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(operation)
  const candidates = qualified ? [sources.get(qualified[1]!)] : [...sources.values()]
  const operationId = qualified ? qualified[2] : operation
  const serviceIds = new Set(candidates.filter((s): s is Service => s !== undefined).map((s) => s.id))
  const matches = tools.filter((t) => serviceIds.has(t.serviceId) && t.operationId === operationId)
  return matches.length === 1 ? matches[0] : undefined
}

/** `{$sourceDescriptions.tickets.url}#/paths/~1tickets~1{ticketId}/get`. */
function byOperationPath(operation: string, { sources, tools }: Resolution): ToolRef | undefined {
  const match = /^\{\$sourceDescriptions\.([^.]+)\.url\}(#.*)$/.exec(operation)
  const service = match && sources.get(match[1]!)
  if (!match || !service) return undefined
  const tokens = match[2]!.slice(1).split('/').slice(1)
  if (tokens.length !== 3 || tokens[0] !== 'paths') return undefined
  const rawPath = unescapePointerToken(decodeSafe(tokens[1]!))
  return tools.find(
    (t) => t.serviceId === service.id && t.rawPath === rawPath && t.method === tokens[2]!.toLowerCase(),
  )
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
