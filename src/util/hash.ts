import { createHash } from 'node:crypto'

/** Hex SHA-256 of a string, cut to `length` characters: used for stable, never random, suffixes. */
export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length)
}
