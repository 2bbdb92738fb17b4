import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { Tool } from '../catalog/types.js'
import { repairArguments } from './repair-arguments.js'
import type { Violation } from './types.js'

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

export type ArgumentCheck =
  | { readonly ok: true; readonly arguments: Record<string, unknown> }
  | { readonly ok: false; readonly violations: readonly Violation[] }

export interface ArgumentValidator {
  check(tool: Tool, args: Readonly<Record<string, unknown>>): ArgumentCheck
}

/**
 * Validates arguments against a tool's input schema (SPEC §3 step 1), listing every violation.
 * One validator per tool per catalog version, compiled on the tool's first call (compiling all
 * of a 1,000-tool catalog at boot would cost seconds). Common model slips are coerced: "5" for
 * 5, a single value where a list is expected.
 */
export function createArgumentValidator(): ArgumentValidator {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, coerceTypes: 'array', logger: false }))
  const compiled = new Map<string, ValidateFunction | undefined>()
  const validatorFor = (tool: Tool) => {
    if (!compiled.has(tool.id)) compiled.set(tool.id, compileOrSkip(ajv, tool))
    return compiled.get(tool.id)
  }
  return {
    check(tool, args) {
      const copy = repairArguments(tool.inputSchema, structuredClone(args) as Record<string, unknown>)
      const validate = validatorFor(tool)
      if (!validate || validate(copy)) return { ok: true, arguments: copy }
      return { ok: false, violations: (validate.errors ?? []).map(toViolation) }
    },
  }
}

/** A schema Ajv cannot compile is served unvalidated rather than making the tool uncallable. */
function compileOrSkip(ajv: Ajv2020, tool: Tool): ValidateFunction | undefined {
  try {
    return ajv.compile(tool.inputSchema)
  } catch {
    return undefined
  }
}

function toViolation(error: ErrorObject): Violation {
  const base = error.instancePath || ''
  if (error.keyword === 'required') {
    return { path: `${base}/${error.params.missingProperty}`, message: 'is required' }
  }
  if (error.keyword === 'additionalProperties') {
    const name = String(error.params.additionalProperty)
    return {
      path: `${base}/${name}`,
      message: base === '' ? 'is not an argument of this tool' : 'is not a known property here',
    }
  }
  if (error.keyword === 'enum') {
    return {
      path: base || '/',
      message: `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
    }
  }
  return { path: base || '/', message: error.message ?? `fails ${error.keyword}` }
}
