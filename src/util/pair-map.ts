/**
 * A map keyed by two strings, held as a map of maps. A key joined per lookup (`${a}\0${b}`) is a
 * new string V8 must hash at every call; the strings a request looks up with (a format's name, a
 * view from its query) are hashed once each, and a map of maps finds them by those hashes.
 */
export class PairMap<V> {
  readonly #outer = new Map<string, Map<string, V>>()

  get(first: string, second: string): V | undefined {
    return this.#outer.get(first)?.get(second)
  }

  /** The value under the pair, made by `make` and kept on first use. */
  getOrAdd(first: string, second: string, make: () => V): V {
    return getOrAdd(this.#inner(first), second, make)
  }

  set(first: string, second: string, value: V): void {
    this.#inner(first).set(second, value)
  }

  #inner(first: string): Map<string, V> {
    return getOrAdd(this.#outer, first, () => new Map())
  }
}

/** The value under `key`, made by `make` and kept on first use. */
export function getOrAdd<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key)
  if (value === undefined) {
    value = make()
    map.set(key, value)
  }
  return value
}
