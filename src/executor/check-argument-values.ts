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
  const refuse = (at: Place, message: string) => violations.push({ path: pointerOf(at), message })
  const pending: Place[] = [{ value: args, depth: 0 }]
  while (pending.length > 0 && violations.length < MAX_VIOLATIONS) {
    const place = pending.pop()!
    const { value, depth } = place
    if (typeof value === 'string') {
      if (!value.isWellFormed()) refuse(place, LONE_SURROGATE)
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) refuse(place, 'must be a finite number')
    } else if (value !== null && typeof value === 'object') {
      if (depth >= maxDepth) {
        refuse(place, `nests deeper than ${maxDepth} levels`)
        continue
      }
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--)
          pending.push({ value: value[i], depth: depth + 1, parent: place, key: i })
        continue
      }
      for (const key of Object.keys(value)) {
        const child = { value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: place, key }
        if (!key.isWellFormed()) refuse(child, `its name ${LONE_SURROGATE}`)
        pending.push(child)
      }
    }
  }
  return violations
}

/**
 * Whether any object or array in `value` lies `max` levels deep or deeper (`value` itself is level
 * 0). The recursion stops at `max` levels, so the stack holds at most `max` frames (callers bound it:
 * MCP's message bound is the argument depth's limit plus the envelope, ≤ 264), and it allocates
 * nothing per value (issue 20: the allocating walk cost a third of server/discover's JSON.parse).
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false
  if (max <= 0) return true
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, max - 1)) return true
    return false
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], max - 1)) return true
  return false
}

/** A value in the walk; its JSON pointer is built only when it is refused. */
interface Place {
  readonly value: unknown
  readonly depth: number
  readonly parent?: Place
  readonly key?: string | number
}

function pointerOf(place: Place): string {
  const keys: (string | number)[] = []
  for (let at: Place | undefined = place; at?.parent; at = at.parent)
    keys.push(typeof at.key === 'string' ? at.key.toWellFormed() : at.key!)
  return keys.length === 0 ? '/' : childPointer('', ...keys.reverse())
}

const LONE_SURROGATE = 'holds a lone surrogate (half of a UTF-16 pair): it is not text any encoding can carry'
