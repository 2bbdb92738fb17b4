import { isRecord } from '../../util/is-record.js'
import { unescapePointerToken } from '../../util/json-pointer.js'
import { parseJsonBody } from '../../util/parse-json-body.js'
import type { ToolOutcome } from '../types.js'
import { type Expression, isExpressionLike, parseExpression, parseTemplate } from './expression.js'

/** A run error: the step and expression it names are in the message; the run stops with it. */
export class RunError extends Error {}

/** A step's answer as expressions read it: `$statusCode`, `$response.*`, `$url`, `$method`. */
export interface StepResponse {
  readonly status: number | null
  /** An array is a repeated header (read joined with `, `); undefined is an absent one. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The body as JSON when it is JSON; a reason when it is not. */
  readonly body: () => { ok: true; value: unknown } | { ok: false; why: string; text?: string }
  readonly url?: string
  readonly method?: string
  /** What the step sent: parameters by location and name, and its body. */
  readonly request?: StepRequest
}

export interface StepRequest {
  readonly parameters: Readonly<Record<string, Readonly<Record<string, unknown>>>>
  readonly body?: unknown
}

export interface WorkflowRan {
  readonly inputs: Readonly<Record<string, unknown>>
  readonly outputs: Readonly<Record<string, unknown>>
}

/** What a run has gathered so far: where `$inputs`, `$steps`, `$workflows`, `$components` read. */
export interface RunContext {
  readonly inputs: Readonly<Record<string, unknown>>
  readonly steps: ReadonlyMap<string, Readonly<Record<string, unknown>>>
  /** Each workflow run through dependsOn: the inputs it ran with and its outputs. */
  readonly workflows: ReadonlyMap<string, WorkflowRan>
  readonly components: unknown
  /** The workflow outputs gathered so far (`$outputs.*`), or a nested workflow's outputs. */
  readonly outputs?: Readonly<Record<string, unknown>>
  readonly response?: StepResponse
  /** `workflow X, step Y`, for messages. */
  readonly where: string
}

/** Absent, as opposed to a value that is null: a pointer or name that reaches nothing. */
export const ABSENT: unique symbol = Symbol('absent')

/** An expression's value, ABSENT when it points at nothing; a RunError when it cannot be read. */
export function readExpression(expression: Expression, context: RunContext): unknown {
  switch (expression.root) {
    case 'statusCode':
      return needResponse(expression, context).status
    case 'url':
      return needResponse(expression, context).url ?? ABSENT
    case 'method':
      return needResponse(expression, context).method ?? ABSENT
    case 'response': {
      const answer = needResponse(expression, context)
      if (expression.source === 'header') return headerOf(answer.headers, expression.name)
      if (expression.source !== 'body')
        throw new RunError(
          `${context.where}: ${expression.text} reads nothing (a response has a body and headers)`,
        )
      const body = answer.body()
      if (!body.ok) {
        if (expression.name === '') return body.text ?? ABSENT
        throw new RunError(`${context.where}: ${expression.text} cannot be read: ${body.why}`)
      }
      return atPointer(body.value, expression.name)
    }
    case 'request': {
      const request = needResponse(expression, context).request
      if (!request) return ABSENT
      if (expression.source === 'body') return atPointer(request.body, expression.name)
      const located = request.parameters[expression.source] ?? {}
      return expression.source === 'header'
        ? headerOf(located as Record<string, string>, expression.name)
        : Object.hasOwn(located, expression.name)
          ? located[expression.name]
          : ABSENT
    }
    case 'inputs':
      return atPointer(walk(context.inputs, expression.names), expression.pointer)
    case 'outputs':
      return atPointer(walk(context.outputs ?? {}, expression.names), expression.pointer)
    case 'components':
      return atPointer(walk(context.components, expression.names), expression.pointer)
    case 'steps': {
      const [id, , ...rest] = expression.names
      const ran = context.steps.get(id!)
      if (!ran) return ABSENT
      return atPointer(walk(ran, rest), expression.pointer)
    }
    case 'workflows': {
      const [id, part, ...rest] = expression.names
      const ran = context.workflows.get(id!)
      if (!ran) return ABSENT
      return atPointer(walk(part === 'inputs' ? ran.inputs : ran.outputs, rest), expression.pointer)
    }
    case 'sourceDescriptions':
      throw new RunError(
        `${context.where}: ${expression.text}: source descriptions are not values a run can read`,
      )
  }
}

/**
 * A step value with its expressions replaced: a whole-string expression by its value (any type),
 * `{$…}` in text by the value's text; objects and arrays through. An expression that reaches
 * nothing is a RunError naming it: a request is never sent with a hole in it.
 */
export function resolveValue(value: unknown, context: RunContext, depth = 0): unknown {
  if (depth > 64) throw new RunError(`${context.where}: a value nests deeper than 64 levels`)
  if (typeof value === 'string') {
    if (isExpressionLike(value)) {
      const parsed = parseExpression(value)
      if (!parsed.ok) throw new RunError(`${context.where}: ${value.slice(0, 200)} ${parsed.message}`)
      return present(readExpression(parsed.expression, context), value, context)
    }
    if (!value.includes('{$')) return value
    const parsed = parseTemplate(value)
    if (!parsed.ok) throw new RunError(`${context.where}: ${parsed.message}`)
    return parsed.template
      .map((part) =>
        typeof part === 'string' ? part : asText(present(readExpression(part, context), part.text, context)),
      )
      .join('')
  }
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, context, depth + 1))
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, context, depth + 1)]))
  return value
}

/** An output expression's value; ABSENT (left out of the outputs) when it reaches nothing. */
export function readOutput(text: string, context: RunContext): unknown {
  const parsed = parseExpression(text)
  if (!parsed.ok) throw new RunError(`${context.where}: ${text.slice(0, 200)} ${parsed.message}`)
  return readExpression(parsed.expression, context)
}

/** How a step's answer reads as JSON: parsed once, on first use. */
export function responseOf(
  outcome: ToolOutcome,
  extra: Pick<StepResponse, 'method' | 'url' | 'request'>,
): StepResponse {
  let parsed: ReturnType<StepResponse['body']> | undefined
  const body = (): ReturnType<StepResponse['body']> => {
    if (parsed) return parsed
    if (outcome.kind === 'refusal') parsed = { ok: true, value: outcome.body }
    else if (outcome.body.type === 'json') {
      const json = parseJsonBody(outcome.body.bytes.toString('utf8'))
      parsed = json.ok ? { ok: true, value: json.value } : { ok: false, why: json.problem }
    } else if (outcome.body.type === 'empty') parsed = { ok: false, why: 'the answer has no body' }
    else if (outcome.body.type === 'text')
      parsed = {
        ok: false,
        why: `the answer is not JSON but ${outcome.body.contentType}`,
        text: outcome.body.text,
      }
    else parsed = { ok: false, why: `the answer is not JSON but ${outcome.body.contentType}` }
    return parsed
  }
  const headers = (outcome.kind === 'answer' && outcome.upstreamHeaders) || outcome.headers
  return { status: outcome.status, headers, body, ...extra }
}

function needResponse(expression: Expression, context: RunContext): StepResponse {
  if (context.response) return context.response
  throw new RunError(`${context.where}: ${expression.text} reads a response, and no step has answered here`)
}

function present(value: unknown, text: string, context: RunContext): unknown {
  if (value === ABSENT) throw new RunError(`${context.where}: ${text.slice(0, 200)} points at nothing`)
  return value
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function headerOf(headers: StepResponse['headers'], name: string): unknown {
  const lower = name.toLowerCase()
  const key = Object.keys(headers).find((k) => k.toLowerCase() === lower)
  const value = key === undefined ? undefined : headers[key]
  if (value === undefined) return ABSENT
  return Array.isArray(value) ? value.join(', ') : value
}

function walk(root: unknown, names: readonly string[]): unknown {
  let value = root
  for (const name of names) {
    if (name === '') continue
    if (!isRecord(value) || !Object.hasOwn(value, name)) return ABSENT
    value = value[name]
  }
  return value
}

/** RFC 6901 inside a value; ABSENT where it reaches nothing. */
export function atPointer(root: unknown, pointer: string): unknown {
  if (root === ABSENT || pointer === '') return root
  let value = root
  for (const token of pointer.slice(1).split('/').map(unescapePointerToken)) {
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < value.length)
      value = value[Number(token)]
    else if (isRecord(value) && Object.hasOwn(value, token)) value = value[token]
    else return ABSENT
  }
  return value
}
