/** RFC 6901 helpers: problems are located by JSON pointer, and local `$ref`s are pointers. */

export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token
  return token.replaceAll('~', '~0').replaceAll('/', '~1')
}

export function unescapePointerToken(token: string): string {
  if (!token.includes('~')) return token
  return token.replaceAll('~1', '/').replaceAll('~0', '~')
}

/** Builds a pointer from raw tokens: `pointerOf('paths', '/a/{b}', 'get')` → `/paths/~1a~1{b}/get`. */
export function pointerOf(...tokens: readonly (string | number)[]): string {
  let pointer = ''
  for (const token of tokens) pointer += '/' + escapePointerToken(String(token))
  return pointer
}

/** Appends raw tokens to an existing pointer. */
export function childPointer(pointer: string, ...tokens: readonly (string | number)[]): string {
  return pointer + pointerOf(...tokens)
}

/**
 * Resolves a local reference (`#/components/schemas/Pet`) or a bare pointer inside `root`.
 * Returns undefined when any token is missing. Percent-encoding in the fragment is decoded.
 */
export function resolvePointer(root: unknown, ref: string): unknown {
  const pointer = ref.startsWith('#') ? safeDecode(ref.slice(1)) : ref
  if (pointer === '') return root
  if (!pointer.startsWith('/')) return undefined
  let node: unknown = root
  for (const raw of pointer.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined
    const token = unescapePointerToken(raw)
    if (!Object.hasOwn(node, token)) return undefined
    node = (node as Record<string, unknown>)[token]
  }
  return node
}

function safeDecode(fragment: string): string {
  if (!fragment.includes('%')) return fragment
  try {
    return decodeURIComponent(fragment)
  } catch {
    return fragment
  }
}
