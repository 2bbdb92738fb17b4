/**
 * Glob over identifiers such as tool IDs (`billing:*`, `*:delete*`, `tickets:get?icket`):
 * `*` matches any run of characters, `/` included (tool IDs can hold raw paths), `?` one character.
 */
export function globToRegExp(glob: string): RegExp {
  const body = [...glob]
    .map((char) => {
      if (char === '*') return '.*'
      if (char === '?') return '.'
      return char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
    })
    .join('')
  return new RegExp('^' + body + '$')
}

/** True when `text` matches at least one of the globs. */
export function matchesAnyGlob(text: string, globs: readonly RegExp[]): boolean {
  return globs.some((glob) => glob.test(text))
}
