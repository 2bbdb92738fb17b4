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
    let value = this.get(first, second)
    if (value === undefined) {
      value = make()
      this.set(first, second, value)
    }
    return value
  }

  set(first: string, second: string, value: V): void {
    let inner = this.#outer.get(first)
    if (!inner) {
      inner = new Map()
      this.#outer.set(first, inner)
    }
    inner.set(second, value)
  }
}
