import { Ajv2020 } from 'ajv/dist/2020.js'
import type { Tool } from '../catalog/types.js'
import { unescapePointerToken } from '../util/json-pointer.js'
import type { Violation } from './types.js'
import { buildSchemaCheck, linearRegExpEngine, type SchemaCheck } from './validate-arguments.js'

export interface OutputValidator {
  /**
   * The first way `value` (a 2xx answer's structuredContent) breaks the tool's output schema, or
   * undefined: also when the tool has no output schema, or the schema cannot be used.
   */
  check(tool: Tool, value: unknown): Violation | undefined
  /**
   * What of a 2xx JSON object answer may be sent as structuredContent (issue 42): the answer
   * itself when it matches the tool's output schema, else the part of it that matches.
   */
  conformingPart(tool: Tool, value: Record<string, unknown>): ConformingPart
}

/**
 * The part of an answer that matches its output schema: a copy without each value a violation
 * pointed at (`leftOut`, in the order found), or `{}` with `emptied` when that was not enough.
 */
export interface ConformingPart {
  readonly part: Record<string, unknown>
  readonly leftOut: readonly Violation[]
  readonly emptied: boolean
}

/**
 * How many values one answer may have left out before its whole part is `{}`: each is found by one
 * more check of the answer (first violation only), so this bounds the work a lying answer costs.
 */
export const MAX_LEFT_OUT = 16

/**
 * Checks answers against the output schemas MCP clients were sent (issue 16), to count the
 * upstreams that break their spec and to send clients only the part of an answer that matches
 * (issue 42: MCP clients throw on structuredContent that does not). One check per tool
 * per catalog version, made on the tool's first answer, compiled or interpreted by size as
 * arguments are. No coercion and no defaults: the answer is never changed. `ownProperties`: a
 * property named `constructor` is the answer's own or absent, never Object's inherited one.
 */
/** What an output schema neither validator can use yields: the spec's problem, not the upstream's; nothing to count. */
const UNUSABLE: Violation = { path: '/', message: 'the output schema cannot be used' }

export function createOutputValidator(): OutputValidator {
  // Patterns run by RE2, linearly: an upstream's answer is as untrusted as a caller's arguments.
  const ajv = new Ajv2020({
    allErrors: false,
    strict: false,
    ownProperties: true,
    logger: false,
    code: { regExp: linearRegExpEngine },
  })
  const checks = new Map<string, SchemaCheck>()
  const checkFor = (tool: Tool, schema: Tool['inputSchema']) => {
    let check = checks.get(tool.id)
    if (!check) {
      check = buildSchemaCheck(ajv, schema, { unusable: () => UNUSABLE, firstOnly: true })
      checks.set(tool.id, check)
    }
    return check
  }
  return {
    check(tool, value) {
      const output = tool.structuredOutput
      if (!('schema' in output)) return undefined
      const [first] = checkFor(tool, output.schema)(value)
      return first === UNUSABLE ? undefined : first
    },
    conformingPart(tool, value) {
      const output = tool.structuredOutput
      if (!('schema' in output)) return { part: value, leftOut: [], emptied: false }
      const check = checkFor(tool, output.schema)
      let part = value
      const leftOut: Violation[] = []
      for (;;) {
        const [first] = check(part)
        if (first === undefined || first === UNUSABLE) return { part, leftOut, emptied: false }
        // The answer is the caller's to keep: only a copy loses values.
        if (part === value) part = structuredClone(value)
        if (leftOut.length === MAX_LEFT_OUT || !removeAt(part, first.path)) break
        leftOut.push(first)
      }
      return { part: {}, leftOut, emptied: true }
    },
  }
}

/**
 * Removes the value `pointer` names, an object's own member or an array's item, from `root`. The
 * lenient output schemas require no property, so a member left out breaks nothing else (an item
 * left out of a tuple may shift the next: found in the next round); each removal shrinks the
 * answer, so the loop above ends. False
 * for the root itself or a pointer that names no value (a `required` one, an interpreter's
 * percent-encoded key): the caller then sends `{}`.
 */
function removeAt(root: Record<string, unknown>, pointer: string): boolean {
  if (pointer === '/' || !pointer.startsWith('/')) return false
  const tokens = pointer.slice(1).split('/').map(unescapePointerToken)
  const last = tokens.pop()!
  let parent: unknown = root
  for (const token of tokens) {
    if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, token)) return false
    parent = (parent as Record<string, unknown>)[token]
  }
  if (Array.isArray(parent)) {
    if (!/^(0|[1-9]\d*)$/.test(last) || Number(last) >= parent.length) return false
    parent.splice(Number(last), 1)
    return true
  }
  if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, last)) return false
  delete (parent as Record<string, unknown>)[last]
  return true
}
