import { parseCondition } from '../executor/workflow/condition.js'
import { checkValue, expressionsIn, isExpressionLike } from '../executor/workflow/expression.js'
import { isRecord } from '../util/is-record.js'
import { linearPattern } from './linear-pattern.js'
import type { ProblemSink } from './problems.js'
import type { WorkflowAction, WorkflowCriterion, WorkflowParameter, WorkflowStep } from './types.js'

/** What a step holds besides its target: read from the document, every expression checked. */
export type StepDetails = Omit<WorkflowStep, 'stepId' | 'toolId' | 'workflowId'>

/** The parts of an Arazzo document step details are resolved against. */
export interface StepContext {
  readonly sink: ProblemSink
  /** `components` of the document (parameters, successActions, failureActions, inputs). */
  readonly components: Record<string, unknown>
  /** Who is speaking in messages: `workflow X, step Y`. */
  readonly where: string
}

const PARAMETER_IN = new Set(['path', 'query', 'header', 'cookie'])

/**
 * Reads a step's parameters, requestBody, successCriteria, onSuccess, onFailure and outputs.
 * Anything that cannot run — an expression that does not parse, a criterion that does not
 * compile, an action of an unknown type — is an error located at its pointer; undefined then.
 */
export function readStepDetails(
  raw: Record<string, unknown>,
  pointer: string,
  outer: StepContext,
): StepDetails | undefined {
  const counted = countingSink(outer.sink)
  const context: StepContext = { ...outer, sink: counted.sink }
  const parameters = listOf(raw.parameters)
    .map((item, i) => readParameter(resolveReference(item, context), `${pointer}/parameters/${i}`, context))
    .filter((p): p is WorkflowParameter => p !== undefined)
  const body = isRecord(raw.requestBody) ? raw.requestBody : undefined
  if (body) checkValues(body.payload, `${pointer}/requestBody/payload`, context)
  const replacements = listOf(body?.replacements)
    .filter(isRecord)
    .map((item, i) => {
      if (typeof item.target !== 'string')
        context.sink.error(
          'workflow-invalid',
          `${pointer}/requestBody/replacements/${i}`,
          `${context.where}: a replacement needs a target`,
        )
      checkValues(item.value, `${pointer}/requestBody/replacements/${i}/value`, context)
      return { target: String(item.target), value: item.value }
    })
  const successCriteria = readCriteria(raw.successCriteria, `${pointer}/successCriteria`, context)
  const onSuccess = readActions(raw.onSuccess, `${pointer}/onSuccess`, 'successActions', context)
  const onFailure = readActions(raw.onFailure, `${pointer}/onFailure`, 'failureActions', context)
  const outputs = readOutputs(raw.outputs, `${pointer}/outputs`, context)
  if (counted.errors() > 0) return undefined
  return {
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    parameters,
    ...(body
      ? {
          requestBody: {
            ...(typeof body.contentType === 'string' ? { contentType: body.contentType } : {}),
            ...('payload' in body ? { payload: body.payload } : {}),
            replacements,
          },
        }
      : {}),
    successCriteria,
    onSuccess,
    onFailure,
    outputs,
  }
}

/** Output name → expression; a value that is no runtime expression is an error. */
export function readOutputs(raw: unknown, pointer: string, context: StepContext): Record<string, string> {
  const outputs: Record<string, string> = {}
  if (raw === undefined) return outputs
  if (!isRecord(raw)) {
    context.sink.error(
      'workflow-invalid',
      pointer,
      `${context.where}: outputs is a map of name to runtime expression`,
    )
    return outputs
  }
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== 'string' || !isExpressionLike(value)) {
      context.sink.error(
        'workflow-expression-invalid',
        `${pointer}/${name}`,
        `${context.where}: output ${name} is not a runtime expression`,
      )
      continue
    }
    const problem = checkValue(value)
    if (problem)
      context.sink.error(
        'workflow-expression-invalid',
        `${pointer}/${name}`,
        `${context.where}: output ${name}: ${problem}`,
      )
    else outputs[name] = value
  }
  return outputs
}

function readParameter(raw: unknown, pointer: string, context: StepContext): WorkflowParameter | undefined {
  if (!isRecord(raw) || typeof raw.name !== 'string' || !('value' in raw)) {
    context.sink.error('workflow-invalid', pointer, `${context.where}: a parameter needs a name and a value`)
    return undefined
  }
  if (raw.in !== undefined && !PARAMETER_IN.has(String(raw.in))) {
    context.sink.error(
      'workflow-invalid',
      pointer,
      `${context.where}: parameter ${raw.name} has in: ${String(raw.in)}; path, query, header or cookie`,
    )
    return undefined
  }
  checkValues(raw.value, `${pointer}/value`, context)
  return { name: raw.name, ...(raw.in ? { in: raw.in as 'path' } : {}), value: raw.value }
}

function readCriteria(raw: unknown, pointer: string, context: StepContext): WorkflowCriterion[] {
  return listOf(raw)
    .map((item, i) => readCriterion(item, `${pointer}/${i}`, context))
    .filter((c): c is WorkflowCriterion => c !== undefined)
}

/** RFC 9535 function extensions (§2.4): jsonpath-plus has none, and would quietly match nothing. */
const RFC9535_FUNCTION = /(?<![\w.$@])(count|length|match|search|value)\s*\(/

/** A criterion that parses (simple), compiles in linear time (regex) or names a context (jsonpath). */
function readCriterion(raw: unknown, pointer: string, context: StepContext): WorkflowCriterion | undefined {
  const fail = (message: string) => {
    context.sink.error('workflow-criterion-invalid', pointer, `${context.where}: ${message}`)
    return undefined
  }
  if (!isRecord(raw) || typeof raw.condition !== 'string') return fail('a criterion needs a condition')
  const type = isRecord(raw.type) ? raw.type.type : (raw.type ?? 'simple')
  if (type !== 'simple' && type !== 'regex' && type !== 'jsonpath')
    return fail(`criterion type ${String(type)} is not simple, regex or jsonpath`)
  if (raw.context !== undefined) {
    const problem =
      typeof raw.context === 'string' && isExpressionLike(raw.context)
        ? checkValue(raw.context)
        : 'is not a runtime expression'
    if (problem) return fail(`criterion context ${String(raw.context).slice(0, 200)}: ${problem}`)
  } else if (type !== 'simple') return fail(`a ${type} criterion needs a context`)
  if (type === 'simple') {
    const parsed = parseCondition(raw.condition)
    if (!parsed.ok) return fail(`condition ${raw.condition.slice(0, 200)} ${parsed.message}`)
  }
  if (type === 'regex') {
    if (!linearPattern(raw.condition))
      return fail(
        `regex ${raw.condition.slice(0, 200)} is no regular expression toolgate can run in linear time`,
      )
  }
  if (type === 'jsonpath' && !raw.condition.startsWith('$'))
    return fail(`JSONPath ${raw.condition.slice(0, 200)} does not start with $`)
  const call = type === 'jsonpath' ? RFC9535_FUNCTION.exec(raw.condition) : null
  if (call)
    return fail(
      `JSONPath ${raw.condition.slice(0, 200)} calls the RFC 9535 function ${call[1]}(), which toolgate's JSONPath (jsonpath-plus) does not evaluate`,
    )
  return {
    condition: raw.condition,
    type,
    ...(typeof raw.context === 'string' ? { context: raw.context } : {}),
  }
}

function readActions(
  raw: unknown,
  pointer: string,
  kind: 'successActions' | 'failureActions',
  context: StepContext,
): WorkflowAction[] {
  return listOf(raw)
    .map((item, i) => readAction(resolveReference(item, context, kind), `${pointer}/${i}`, kind, context))
    .filter((action): action is WorkflowAction => action !== undefined)
}

function readAction(
  action: unknown,
  at: string,
  kind: 'successActions' | 'failureActions',
  context: StepContext,
): WorkflowAction | undefined {
  const fail = (message: string) => {
    context.sink.error('workflow-invalid', at, `${context.where}: ${message}`)
    return undefined
  }
  if (!isRecord(action) || typeof action.name !== 'string' || typeof action.type !== 'string')
    return fail('an action needs a name and a type')
  const allowed = kind === 'successActions' ? ['end', 'goto'] : ['end', 'goto', 'retry']
  if (!allowed.includes(action.type))
    return fail(`action ${action.name} has type ${action.type}; ${allowed.join(', ')} are allowed here`)
  if (action.type === 'goto' && typeof action.stepId !== 'string' && typeof action.workflowId !== 'string')
    return fail(`goto action ${action.name} names no stepId or workflowId`)
  const { retryAfter, retryLimit } = action
  if (retryAfter !== undefined && (typeof retryAfter !== 'number' || !(retryAfter >= 0)))
    return fail(`action ${action.name}: retryAfter is a number of seconds, 0 or more`)
  if (retryLimit !== undefined && (!Number.isInteger(retryLimit) || (retryLimit as number) < 0))
    return fail(`action ${action.name}: retryLimit is a whole number, 0 or more`)
  return {
    name: action.name,
    type: action.type as WorkflowAction['type'],
    ...(typeof action.stepId === 'string' ? { stepId: action.stepId } : {}),
    ...(typeof action.workflowId === 'string'
      ? { workflowId: action.workflowId.replace(/^\$sourceDescriptions\.[^.]+\./, '') }
      : {}),
    ...(typeof retryAfter === 'number' ? { retryAfter } : {}),
    ...(typeof retryLimit === 'number' ? { retryLimit } : {}),
    criteria: readCriteria(action.criteria, `${at}/criteria`, context),
  }
}

/** `{reference: $components.parameters.page, value?}` → the component (its value overridden). */
function resolveReference(item: unknown, context: StepContext, kind = 'parameters'): unknown {
  if (!isRecord(item) || typeof item.reference !== 'string') return item
  const match = /^\$components\.([A-Za-z]+)\.([A-Za-z0-9_.-]+)$/.exec(item.reference)
  const section =
    match && isRecord(context.components[match[1]!])
      ? (context.components[match[1]!] as Record<string, unknown>)
      : undefined
  const target = match && section && Object.hasOwn(section, match[2]!) ? section[match[2]!] : undefined
  if (!match || match[1] !== kind || !isRecord(target)) return item
  return 'value' in item ? { ...target, value: item.value } : target
}

function checkValues(value: unknown, pointer: string, context: StepContext): void {
  for (const text of expressionsIn(value)) {
    const problem = checkValue(text)
    if (problem) context.sink.error('workflow-expression-invalid', pointer, `${context.where}: ${problem}`)
  }
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** The sink, and how many errors went through it. */
export function countingSink(sink: ProblemSink): { sink: ProblemSink; errors: () => number } {
  let errors = 0
  const error: ProblemSink['error'] = (code, pointer, message) => {
    errors++
    sink.error(code, pointer, message)
  }
  return {
    sink: {
      file: sink.file,
      warn: sink.warn,
      error,
      report: (severity, code, pointer, message) =>
        severity === 'error' ? error(code, pointer, message) : sink.warn(code, pointer, message),
    },
    errors: () => errors,
  }
}
