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

/**
 * Work made once and kept: `pending` is handed to `keep` at once, so callers meanwhile share it,
 * then its value once it resolves, so later callers get the value without a promise. If it
 * rejects, `keep(undefined)` forgets it and the next caller tries again.
 */
export function keepWhenSettled<T>(
  pending: Promise<T>,
  keep: (kept: T | Promise<T> | undefined) => void,
): Promise<T> {
  const settled = pending.then(
    (value) => {
      keep(value)
      return value
    },
    (err: unknown) => {
      keep(undefined)
      throw err
    },
  )
  keep(settled)
  return settled
}
