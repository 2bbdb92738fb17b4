import { isRecord } from '../../src/util/is-record.js'

export type Fields = Record<string, unknown>

/** Reads a parsed YAML object leniently: a missing or mistyped node is an empty object. */
export const fields = (value: unknown): Fields => (isRecord(value) ? value : {})

/** The objects of a list, or none. */
export const fieldList = (value: unknown): Fields[] => (Array.isArray(value) ? value.filter(isRecord) : [])

/** A `name: value` list (container env) as a map. */
export const envMap = (value: unknown): Map<string, string> =>
  new Map(fieldList(value).map((entry) => [String(entry.name), String(entry.value ?? '')]))

/** Milliseconds from an environment value: the default when unset, NaN when not an integer. */
export function envMs(env: ReadonlyMap<string, string>, name: string, fallback: number): number {
  const value = env.get(name)
  if (value === undefined) return fallback
  return /^\d+$/.test(value) ? Number(value) : Number.NaN
}

/** An image reference that pins a version: a tag other than latest, or a digest. */
export function isPinnedImage(image: string): boolean {
  if (image.includes('@sha256:')) return true
  const tag = /:([^/:]+)$/.exec(image)?.[1]
  return tag !== undefined && tag !== 'latest'
}
