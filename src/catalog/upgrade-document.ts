import { upgrade } from '@scalar/openapi-parser'
import { setOwn } from '../util/own.js'
import type { ProblemSink } from './problems.js'

/**
 * Converts Swagger 2.0 and OpenAPI 3.0 to OpenAPI 3.1 with Scalar's upgrader, so that the
 * rest of the catalog reads one dialect: `in: body`/`formData` become request bodies,
 * `nullable` becomes a type union, `definitions` become `components.schemas`.
 */
export function upgradeToOpenApi31(
  document: Record<string, unknown>,
  sink: ProblemSink,
): Record<string, unknown> | undefined {
  if (typeof document.openapi === 'string' && document.openapi.startsWith('3.1')) return document
  try {
    const copy = structuredClone(document)
    // The upgrader copies objects by assignment, which drops a `__proto__` key (a property or
    // schema of that name): such keys travel through it under another name and come back.
    const escaped = renameKeys(copy, escapeProtoKey)
    const { specification } = upgrade(copy)
    if (escaped) renameKeys(specification, unescapeProtoKey)
    return specification as Record<string, unknown>
  } catch (err) {
    sink.error(
      'source-upgrade-failed',
      '',
      `cannot convert the document to OpenAPI 3.1: ${(err as Error).message}`,
    )
    return undefined
  }
}

const ESCAPE = '__toolgate_escaped_'
const ESCAPABLE = new RegExp(`^(${ESCAPE})*__proto__$`)

/** `__proto__` → `__toolgate_escaped___proto__`, and so on for names already escaped: a bijection. */
function escapeProtoKey(key: string): string | undefined {
  return ESCAPABLE.test(key) ? `${ESCAPE}${key}` : undefined
}

function unescapeProtoKey(key: string): string | undefined {
  return key.startsWith(ESCAPE) && ESCAPABLE.test(key) ? key.slice(ESCAPE.length) : undefined
}

/** Renames object keys in place, everywhere, keeping their order; true when any was renamed. Iterative: no depth limit. */
function renameKeys(root: unknown, rename: (key: string) => string | undefined): boolean {
  let renamed = false
  const pending: unknown[] = [root]
  const seen = new Set<object>()
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object' || seen.has(node)) continue
    seen.add(node)
    const record = node as Record<string, unknown>
    const entries = Object.entries(record)
    if (!Array.isArray(node) && entries.some(([key]) => rename(key) !== undefined)) {
      renamed = true
      for (const [key] of entries) delete record[key]
      for (const [key, value] of entries) setOwn(record, rename(key) ?? key, value)
    }
    for (const [, value] of entries) pending.push(value)
  }
  return renamed
}
