import type { Tool, WorkflowStep } from '../../catalog/types.js'
import { isRecord } from '../../util/is-record.js'
import { type RunContext, RunError, resolveValue, type StepRequest } from './evaluate.js'

/** An operation step's tool arguments, and what the step sends as `$request.*` reads it. */
export interface StepArguments {
  readonly arguments: Record<string, unknown>
  readonly request: StepRequest
}

/**
 * A step's parameters and requestBody (replacements applied) as arguments of its tool: each goes
 * to the input-schema key the tool binds to that location and name, so the step is validated and
 * sent exactly as an agent's call of the tool would be.
 */
export function stepArguments(step: WorkflowStep, tool: Tool, context: RunContext): StepArguments {
  const keys = new Map<string, string>()
  let wholeBody: string | undefined
  for (const [key, target] of Object.entries(tool.binding.arguments)) {
    if ('whole' in target) wholeBody = key
    else keys.set(`${target.in}:${target.name}`, key)
  }
  const args: Record<string, unknown> = {}
  const parameters: Record<string, Record<string, unknown>> = { path: {}, query: {}, header: {}, cookie: {} }
  for (const parameter of step.parameters) {
    const at = parameter.in ? [parameter.in] : (['path', 'query', 'header', 'cookie'] as const)
    const location = at.find((where) => keys.has(`${where}:${parameter.name}`))
    if (!location)
      throw new RunError(
        `${context.where}: parameter ${parameter.name}${parameter.in ? ` (in ${parameter.in})` : ''} is not one ${tool.id} takes`,
      )
    const value = resolveValue(parameter.value, context)
    args[keys.get(`${location}:${parameter.name}`)!] = value
    parameters[location]![parameter.name] = value
  }
  const body = step.requestBody
  if (!body || !('payload' in body)) return { arguments: args, request: { parameters } }
  let payload = resolveValue(body.payload, context)
  for (const replacement of body.replacements)
    payload = replace(payload, replacement.target, resolveValue(replacement.value, context), context)
  if (wholeBody !== undefined) args[wholeBody] = payload
  else if (isRecord(payload)) {
    for (const [name, value] of Object.entries(payload)) {
      const key = keys.get(`body:${name}`)
      if (key === undefined)
        throw new RunError(`${context.where}: body property ${name} is not one ${tool.id} takes`)
      args[key] = value
    }
  } else throw new RunError(`${context.where}: ${tool.id} takes an object body, and the payload is not one`)
  return { arguments: args, request: { parameters, body: payload } }
}

/** A payload with the value at the JSON pointer `target` set (Arazzo Payload Replacement). */
function replace(payload: unknown, target: string, value: unknown, context: RunContext): unknown {
  if (target === '' || target === '/') return value
  if (!target.startsWith('/'))
    throw new RunError(`${context.where}: replacement target ${target.slice(0, 200)} is not a JSON pointer`)
  const tokens = target
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
  const root = structuredClone(payload)
  let node: unknown = root
  for (const [i, token] of tokens.entries()) {
    const last = i === tokens.length - 1
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(token) && Number(token) < node.length) {
      if (last) node[Number(token)] = value
      else node = node[Number(token)]
    } else if (isRecord(node) && (last || Object.hasOwn(node, token))) {
      if (last)
        Object.defineProperty(node, token, { value, enumerable: true, writable: true, configurable: true })
      else node = node[token]
    } else
      throw new RunError(
        `${context.where}: replacement target ${target.slice(0, 200)} points at nothing in the payload`,
      )
  }
  return root
}
