import { Ajv2020 } from 'ajv/dist/2020.js'
import type { Tool } from '../catalog/types.js'
import type { Violation } from './types.js'
import { buildSchemaCheck, linearRegExpEngine, type SchemaCheck } from './validate-arguments.js'

export interface OutputValidator {
  /**
   * The first way `value` (a 2xx answer's structuredContent) breaks the tool's output schema, or
   * undefined: also when the tool has no output schema, or the schema cannot be used.
   */
  check(tool: Tool, value: unknown): Violation | undefined
}

/**
 * Checks answers against the output schemas MCP clients were sent (issue 16), to count the
 * upstreams that break their spec; the answer is passed on whatever this says. One check per tool
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
  }
}
