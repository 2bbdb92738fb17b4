/**
 * Freezes a value and everything reachable from it; shared sub-objects are frozen once. Binary
 * buffers (token digests) cannot be frozen and are left as they are: nothing hands them out.
 *
 * With `strings`, equal string values also become one: each is replaced, before its object is
 * frozen, by the first equal one met in any walk given the same map (the catalog's decode, where
 * V8's deserializer made a string per occurrence).
 */
export function deepFreeze<T>(value: T, strings?: Map<string, string>): T {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object' || Object.isFrozen(node) || ArrayBuffer.isView(node))
      continue
    if (strings) intern(node as Record<string, unknown>, strings)
    Object.freeze(node)
    const children = Object.values(node)
    for (let i = 0; i < children.length; i++) pending.push(children[i])
  }
  return value
}

function intern(record: Record<string, unknown>, strings: Map<string, string>): void {
  const keys = Object.keys(record)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    const child = record[key]
    if (typeof child !== 'string') continue
    const known = strings.get(child)
    // Strings compare by value, so `known !== child` cannot tell the copy: always write it.
    if (known === undefined) strings.set(child, child)
    else record[key] = known
  }
}
