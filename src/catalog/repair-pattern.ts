import { linearPattern } from './linear-pattern.js'

/**
 * A `pattern` as an ECMAScript regular expression in `u` mode (what JSON Schema means) that the
 * gateway runs in linear time (linear-pattern.ts), or undefined when it cannot become one: a
 * pattern that needs backtracking (a lookaround, a backreference) is never run (issue 41 class 1).
 * A pattern that compiles and runs linearly is returned unchanged.
 * Otherwise the dialects specs are written in (PCRE, Python, Java, .NET) are translated where the
 * translation keeps the meaning or only widens it (a spaced quantifier aside: read as meant):
 * - a `{` or `}` that opens or closes no quantifier is a literal, as PCRE and Python read it;
 *   a quantifier written with spaces (`{1, 3}`) or Python's `{,m}` is the quantifier it means;
 * - `\A` → `^`, `\Z`/`\z` → `$` (JSON Schema patterns never take the `m` flag);
 * - a needless escape (`\-`, `\@`, `\ ` outside a class) → the character itself;
 * - POSIX classes `[[:alpha:]]` → their ASCII ranges;
 * - Python's `(?P<name>…)` and `(?P=name)` → `(?<name>…)` and `\k<name>`;
 * - possessive quantifiers (`a++`) and atomic groups (`(?>…)`) → greedy ones and plain groups,
 *   which accept a superset (never refuse what the author allowed).
 * Inline flags (`(?i)`), `\Q…\E`, `\h`, `\R` and the like have no translation.
 */
export function repairPattern(pattern: string): string | undefined {
  if (isUnicodeRegExp(pattern)) return linearPattern(pattern) ? pattern : undefined
  const translated = translatePattern(pattern)
  return translated !== undefined && linearPattern(translated) ? translated : undefined
}

/** Whether `pattern` compiles as JSON Schema validators compile it: `new RegExp(pattern, 'u')`. */
export function isUnicodeRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u')
    return true
  } catch {
    return false
  }
}

/** Escapes JavaScript gives a meaning in `u` mode, outside and inside a character class. */
const MEANINGFUL_ESCAPES = new Set('dDwWsSbBtnvfr0cxukpP123456789^$\\.*+?()[]{}|/')
const CLASS_ESCAPES = new Set('dDwWsSbtnvfr0cxupP-^$\\.*+?()[]{}|/')
const ANCHORS: Record<string, string> = { A: '^', Z: '$', z: '$' }
// `{n}`, `{n,}`, `{n,m}`, Python's `{,m}`, and any of them with spaces (`\d{1, 3}`).
const QUANTIFIER = /^\{ *(\d*) *(,?) *(\d*) *\}/
const POSIX_CLASSES: Record<string, string> = {
  alpha: 'a-zA-Z',
  digit: '0-9',
  alnum: 'a-zA-Z0-9',
  upper: 'A-Z',
  lower: 'a-z',
  xdigit: '0-9A-Fa-f',
  space: '\\s',
  blank: ' \\t',
  word: '\\w',
  punct: '!-\\/:-@\\[-`\\{-~',
  cntrl: '\\x00-\\x1f\\x7f',
  print: '\\x20-\\x7e',
  graph: '\\x21-\\x7e',
}

interface Scan {
  readonly source: string
  at: number
  out: string
  /** The last token was an atom a quantifier may follow. */
  atom: boolean
  /** The last token was a quantifier (a following `+` makes it possessive, `?` lazy). */
  quantified: boolean
}

function translatePattern(source: string): string | undefined {
  const scan: Scan = { source, at: 0, out: '', atom: false, quantified: false }
  while (scan.at < source.length) {
    const ok = source[scan.at] === '[' ? readClass(scan) : readToken(scan)
    if (!ok) return undefined
  }
  return scan.out
}

/** One token outside a character class; false when it has no translation. */
function readToken(scan: Scan): boolean {
  const { source } = scan
  const char = source[scan.at]!
  if (char === '\\') return readEscape(scan)
  if (char === '(') return readGroup(scan)
  if (char === '{' || char === '}') return readBrace(scan)
  if (char === '*' || char === '+' || char === '?') {
    // `a++`, `a*+`, `a?+`: possessive; the greedy form accepts a superset.
    const possessive = char === '+' && scan.quantified
    if (!possessive) scan.out += char
    scan.quantified = !scan.quantified && !possessive
    scan.atom = false
    scan.at++
    return true
  }
  scan.out += char === ']' ? '\\]' : char
  scan.atom = !'|^$('.includes(char)
  scan.quantified = false
  scan.at++
  return true
}

function readEscape(scan: Scan): boolean {
  const next = scan.source[scan.at + 1]
  if (next === undefined) return false
  scan.quantified = false
  if (next in ANCHORS) {
    scan.out += ANCHORS[next]
    scan.atom = false
    scan.at += 2
    return true
  }
  if (MEANINGFUL_ESCAPES.has(next)) {
    // `\p{L}` and `\u{1F600}` carry their braces with them.
    const braced = /^\\[pPu]\{[^}]*\}/.exec(scan.source.slice(scan.at))?.[0]
    const token = braced ?? `\\${next}`
    scan.out += token
    scan.atom = next !== 'b' && next !== 'B'
    scan.at += token.length
    return true
  }
  if (/[a-zA-Z]/.test(next)) return false
  scan.out += next // `\-`, `\@`, `\'`: the character itself
  scan.atom = true
  scan.at += 2
  return true
}

function readGroup(scan: Scan): boolean {
  const rest = scan.source.slice(scan.at)
  scan.atom = false
  scan.quantified = false
  const python = /^\(\?P=(\w+)\)/.exec(rest)
  if (python) {
    scan.out += `\\k<${python[1]}>`
    scan.atom = true
    scan.at += python[0].length
    return true
  }
  const comment = /^\(\?#[^)]*\)/.exec(rest)
  if (comment) {
    scan.at += comment[0].length
    return true
  }
  const opener = /^\((?:\?(?:P?<(?=\w)|<=|<!|[:=!>]))?/.exec(rest)![0]
  if (opener === '(' && rest.startsWith('(?')) return false // inline flags, conditionals
  scan.out += opener.replace('?P<', '?<').replace('?>', '?:')
  scan.at += opener.length
  return true
}

function readBrace(scan: Scan): boolean {
  const [whole, min = '', comma, max = ''] = QUANTIFIER.exec(scan.source.slice(scan.at)) ?? []
  if (whole !== undefined && scan.atom && (min !== '' || (comma !== '' && max !== ''))) {
    scan.out += `{${min || '0'}${comma}${max}}`
    scan.at += whole.length
    scan.atom = false
    scan.quantified = true
    return true
  }
  // A brace that opens or closes no quantifier is a literal, as PCRE and Python read it.
  scan.out += `\\${scan.source[scan.at]}`
  scan.atom = true
  scan.quantified = false
  scan.at++
  return true
}

/** A character class `[…]`, up to and including its `]`. */
function readClass(scan: Scan): boolean {
  const { source } = scan
  let at = scan.at + 1
  let out = '['
  if (source[at] === '^') out += source[at++]
  // `[]…]` and `[^]…]`: a leading `]` is a literal in PCRE and POSIX.
  if (source[at] === ']') {
    out += '\\]'
    at++
  }
  while (at < source.length && source[at] !== ']') {
    const posix = /^\[:(\w+):\]/.exec(source.slice(at))
    if (posix) {
      const range = POSIX_CLASSES[posix[1]!]
      if (range === undefined) return false
      out += range
      at += posix[0].length
      continue
    }
    if (source[at] === '\\') {
      const next = source[at + 1]
      if (next === undefined || (/[a-zA-Z]/.test(next) && !CLASS_ESCAPES.has(next))) return false
      out += CLASS_ESCAPES.has(next) ? `\\${next}` : next
      at += 2
      continue
    }
    out += source[at++]
  }
  if (at >= source.length) return false
  scan.out += `${out}]`
  scan.at = at + 1
  scan.atom = true
  scan.quantified = false
  return true
}
