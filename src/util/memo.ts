/**
 * A value computed once per owner object and key, and dropped with the owner: per catalog version
 * and view, per catalog version and client. The owner is held weakly; its keys as long as it lives,
 * or, with `maxKeys` (keys a caller chooses), until an owner's map is full: then it starts over.
 */
export function memoPerOwner<Owner extends object, Key, Value>(
  compute: (owner: Owner, key: Key) => Value,
  maxKeys = Number.POSITIVE_INFINITY,
): (owner: Owner, key: Key) => Value {
  const memo = new WeakMap<Owner, Map<Key, Value>>()
  return (owner, key) => {
    let byKey = memo.get(owner)
    if (!byKey) {
      byKey = new Map()
      memo.set(owner, byKey)
    }
    let value = byKey.get(key)
    if (value === undefined) {
      value = compute(owner, key)
      if (byKey.size >= maxKeys) byKey.clear()
      byKey.set(key, value)
    }
    return value
  }
}
