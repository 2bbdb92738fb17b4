import { resolvePointer } from '../util/json-pointer.js'

/** Keywords whose values are data, not schemas: a `$ref` key inside an example is not a reference. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'enum', 'const'])

/** `#/a/b%20c` → `#/a/b c`, so that two spellings of one reference compare equal. */
export function normalizeRef(ref: string): string {
  try {
    return '#' + decodeURIComponent(ref.slice(1))
  } catch {
    return ref
  }
}

/** The local references found inside a value, not following them. */
export function localRefsIn(value: unknown): string[] {
  const refs: string[] = []
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object') continue
    if (Array.isArray(node)) {
      pending.push(...node)
      continue
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#')) refs.push(normalizeRef(child))
      else if (!DATA_KEYWORDS.has(key)) pending.push(child)
    }
  }
  return refs
}

/**
 * Tells which reference targets lie on a cycle of references (a schema that contains itself,
 * directly or through others). Those are kept as `$defs` entries; every other reference is
 * inlined. Tarjan's strongly connected components over the lazily explored reference graph.
 */
export function createRecursionDetector(document: unknown): (ref: string) => boolean {
  const recursive = new Map<string, boolean>()
  const edges = new Map<string, string[]>()
  const edgesOf = (ref: string): string[] => {
    let found = edges.get(ref)
    if (!found) {
      found = [...new Set(localRefsIn(resolvePointer(document, ref)))]
      edges.set(ref, found)
    }
    return found
  }

  const index = new Map<string, number>()
  const lowLink = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  let counter = 0

  const strongConnect = (ref: string): void => {
    index.set(ref, counter)
    lowLink.set(ref, counter)
    counter++
    stack.push(ref)
    onStack.add(ref)
    for (const next of edgesOf(ref)) {
      if (recursive.has(next)) continue
      if (!index.has(next)) {
        strongConnect(next)
        lowLink.set(ref, Math.min(lowLink.get(ref)!, lowLink.get(next)!))
      } else if (onStack.has(next)) {
        lowLink.set(ref, Math.min(lowLink.get(ref)!, index.get(next)!))
      }
    }
    if (lowLink.get(ref) !== index.get(ref)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== ref)
    const cyclic = component.length > 1 || edgesOf(ref).includes(ref)
    for (const node of component) recursive.set(node, cyclic)
  }

  return (ref: string): boolean => {
    const key = normalizeRef(ref)
    if (!recursive.has(key)) strongConnect(key)
    return recursive.get(key) ?? false
  }
}
