/**
 * JSON with object keys sorted at every level, so equal values always give equal text
 * (the catalog version is a hash of it). Undefined members are skipped as JSON.stringify does.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return '[' + value.map((item) => stableStringify(item ?? null)).join(',') + ']'
  const record = value as Record<string, unknown>
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => JSON.stringify(key) + ':' + stableStringify(record[key]))
  return '{' + members.join(',') + '}'
}
