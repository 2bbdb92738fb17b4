/**
 * Freezes a value and everything reachable from it; shared sub-objects are frozen once. Binary
 * buffers (token digests) cannot be frozen and are left as they are: nothing hands them out.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object' || Object.isFrozen(node) || ArrayBuffer.isView(node))
      continue
    Object.freeze(node)
    const children = Object.values(node)
    for (let i = 0; i < children.length; i++) pending.push(children[i])
  }
  return value
}
