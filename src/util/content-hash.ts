import { hash } from 'node:crypto'

/** Child texts longer than this are folded into their digest inside the parent's text. */
const FOLD_ABOVE = 512

/**
 * A SHA-256 (hex) of a JSON value that depends on its content only: object keys are sorted at
 * every level and undefined members skipped, so equal values hash equal whatever their key order.
 * It is a hash tree: a long member is represented in its parent by its own digest, and a shared
 * sub-object (the catalog reuses one inlined schema in many tools) is digested once.
 */
export function contentHash(value: unknown): string {
  return digest(canonical(value, new WeakMap()))
}

/** `contentHash` for many values that share sub-objects: each shared one is digested once. */
export function createContentHasher(): (value: unknown) => string {
  const seen = new WeakMap<object, string>()
  return (value) => digest(canonical(value, seen))
}

/** One-shot: no Hash object per folded member (thousands per catalog). */
function digest(text: string): string {
  return hash('sha256', text, 'hex')
}

/** Object keys in code-unit order, as `sort()` without a comparator puts strings, but faster. */
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * An object's keys in code-unit order. Most objects have a handful: sorted in place by insertion,
 * since `Array.prototype.sort` allocates a work copy per call (24 MB over GitHub's catalog).
 * Keys are distinct, so the order is the one `sort(byCodeUnits)` gives.
 */
function sortedKeys(record: object): string[] {
  const keys = Object.keys(record)
  if (keys.length > 32) return keys.sort(byCodeUnits)
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!
    let j = i - 1
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!
      j--
    }
    keys[j + 1] = key
  }
  return keys
}

/** What JSON.stringify escapes in a string (lone surrogates included; a pair is checked there too). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/**
 * JSON.stringify's text of a string (a value or a key): one without anything to escape is quoted
 * without a call or a copy (the catalog's descriptions are most of what is hashed).
 */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`
}

function canonical(value: unknown, seen: WeakMap<object, string>): string {
  if (typeof value === 'string') {
    return quote(value)
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  const cached = seen.get(value)
  if (cached !== undefined) return cached
  let text: string
  if (Array.isArray(value)) {
    // Indexed loops throughout: the build hashes its catalog once, in code that is still cold,
    // where iterators and callbacks allocate per step.
    text = '['
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ','
      text += canonical(value[i] ?? null, seen)
    }
    text += ']'
  } else {
    // One string built in place, not arrays of members mapped and joined: half the time cold
    // (GitHub's catalog version, 49,000 objects: 216 ms before, 100 ms so).
    const record = value as Record<string, unknown>
    const keys = sortedKeys(record)
    text = '{'
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const member = record[key]
      if (member === undefined) continue
      if (text.length > 1) text += ','
      text += `${quote(key)}:${canonical(member, seen)}`
    }
    text += '}'
  }
  // Only folded texts are remembered: a short one costs less to rebuild than to hold in the map.
  if (text.length <= FOLD_ABOVE) return text
  const folded = `#${digest(text)}`
  seen.set(value, folded)
  return folded
}
