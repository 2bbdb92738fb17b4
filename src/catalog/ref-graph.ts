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
    // Indexed loops: no [key, value] pair per member, no spread of every array.
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) pending.push(node[i])
      continue
    }
    const keys = Object.keys(node)
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      const child = (node as Record<string, unknown>)[key]
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

  const visit = (ref: string, work: { ref: string; edges: string[]; next: number }[]): void => {
    index.set(ref, counter)
    lowLink.set(ref, counter)
    counter++
    stack.push(ref)
    onStack.add(ref)
    work.push({ ref, edges: edgesOf(ref), next: 0 })
  }

  const closeComponent = (ref: string): void => {
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

  // Iterative, so a long chain of references cannot overflow the call stack.
  const strongConnect = (root: string): void => {
    const work: { ref: string; edges: string[]; next: number }[] = []
    visit(root, work)
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      if (frame.next < frame.edges.length) {
        const target = frame.edges[frame.next++]!
        if (recursive.has(target)) continue
        if (!index.has(target)) visit(target, work)
        else if (onStack.has(target))
          lowLink.set(frame.ref, Math.min(lowLink.get(frame.ref)!, index.get(target)!))
        continue
      }
      work.pop()
      if (lowLink.get(frame.ref) === index.get(frame.ref)) closeComponent(frame.ref)
      const parent = work[work.length - 1]
      if (parent) lowLink.set(parent.ref, Math.min(lowLink.get(parent.ref)!, lowLink.get(frame.ref)!))
    }
  }

  return (ref: string): boolean => {
    const key = normalizeRef(ref)
    if (!recursive.has(key)) strongConnect(key)
    return recursive.get(key) ?? false
  }
}
