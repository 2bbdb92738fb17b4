/**
 * Spec-supplied names (properties, parameters, content types, scheme names) as object keys.
 * `obj[name] = value` with the name `__proto__` replaces the object's prototype instead of adding
 * a key, and `name in obj` is true for `constructor` or `toString` on any object: these two
 * helpers are what every such key goes through.
 */

/** Adds `key` as an own, enumerable data property — also when it is `__proto__`. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  // `__proto__` is Object.prototype's only accessor: every other name, `constructor` included,
  // becomes an own data property by plain assignment, which is several times faster.
  if (key !== '__proto__') target[key] = value
  else Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** The value of `key` when the object itself holds it; never one inherited from Object.prototype. */
export function getOwn<T>(source: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(source, key) ? source[key] : undefined
}
