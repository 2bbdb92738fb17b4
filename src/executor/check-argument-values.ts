import { childPointer } from '../util/json-pointer.js'
import type { Violation } from './types.js'

/** Arguments nested deeper than this are refused before anything recursive touches them (limits.argumentDepth). */
export const DEFAULT_ARGUMENT_DEPTH = 64

/** A refusal lists this many violations at most: a megabyte of `1e309`s needs no megabyte-long answer. */
const MAX_VIOLATIONS = 20

/**
 * The first step of every tool call, whatever the surface (REST, Opal, MCP): values no encoder or
 * validator can take are refused here, by path, without recursion (issue 14 class 3):
 * - nesting deeper than `maxDepth` (validators, encoders and repair recurse, and would overflow);
 * - numbers that are not finite (`1e309` parses to Infinity, passes an integer check, is sent as null);
 * - strings and keys that are not well-formed UTF-16 (a lone surrogate makes every URI encoder throw).
 */
export function checkArgumentValues(args: unknown, maxDepth: number): Violation[] {
  const violations: Violation[] = []
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: args, path: '', depth: 0 }]
  while (pending.length > 0 && violations.length < MAX_VIOLATIONS) {
    const { value, path, depth } = pending.pop()!
    if (typeof value === 'string') {
      if (!value.isWellFormed()) violations.push({ path: path || '/', message: LONE_SURROGATE })
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) violations.push({ path: path || '/', message: 'must be a finite number' })
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxDepth) {
        violations.push({ path: path || '/', message: `nests deeper than ${maxDepth} levels` })
        continue
      }
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--)
          pending.push({ value: value[i], path: childPointer(path, i), depth: depth + 1 })
        continue
      }
      for (const key of Object.keys(value)) {
        const child = childPointer(path, key.toWellFormed())
        if (!key.isWellFormed()) violations.push({ path: child, message: `its name ${LONE_SURROGATE}` })
        pending.push({ value: (value as Record<string, unknown>)[key], path: child, depth: depth + 1 })
      }
    }
  }
  return violations
}

const LONE_SURROGATE = 'holds a lone surrogate (half of a UTF-16 pair): it is not text any encoding can carry'
