import { RE2JS } from 're2js'

/**
 * Spec and remote-source patterns run in linear time (issue 41 class 1). V8's engine backtracks:
 * `^(a+)+$` against 30 characters held the event loop 10.8 s, `(x+x+)+y` against 3 KB for good.
 * Every pattern a spec brings is matched by RE2 (re2js: a pure-JS port, no native addon to
 * download or build, maintained), which never backtracks: time grows with pattern × input, never
 * exponentially. A pattern is translated from ECMAScript `u`-mode syntax (what JSON Schema means)
 * to RE2 syntax with the same meaning; one RE2 cannot run — a lookaround, a backreference, a
 * repeat count over 1,000 — has no linear form and is left out at catalog build (repair-keywords.ts).
 */
export interface LinearPattern {
  /** Whether the pattern matches anywhere in `text`, as `RegExp.prototype.test` with the `u` flag. */
  test(text: string): boolean
}

/** Compiled patterns by source; a failed translation is kept as null. Bounded: patterns come from specs. */
const compiled = new Map<string, LinearPattern | null>()
const MAX_COMPILED = 10_000

/** The pattern, run by RE2 with its `u`-mode meaning, or undefined when it has no linear form (or is no regex). */
export function linearPattern(pattern: string): LinearPattern | undefined {
  let found = compiled.get(pattern)
  if (found === undefined) {
    found = compile(pattern)
    if (compiled.size >= MAX_COMPILED) compiled.clear()
    compiled.set(pattern, found)
  }
  return found ?? undefined
}

function compile(pattern: string): LinearPattern | null {
  try {
    new RegExp(pattern, 'u') // parsed only, never run: the syntax the translation may assume
  } catch {
    return null
  }
  const source = toRe2(pattern)
  if (source === undefined) return null
  try {
    const re2 = RE2JS.compile(source)
    return { test: (text) => re2.test(text) }
  } catch {
    return null // a repeat count over 1,000, an unknown Unicode property name
  }
}

/** JavaScript's `\s`: WhiteSpace and LineTerminator (RE2's `\s` is ASCII only). */
const SPACES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]
const MAX_CODE_POINT = 0x10ffff

function ranges(list: readonly (readonly [number, number])[]): string {
  return list.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}-${hex(high)}`)).join('')
}

function complement(list: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = []
  let next = 0
  for (const [low, high] of list) {
    if (low > next) out.push([next, low - 1])
    next = high + 1
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT])
  return out
}

const SPACE_RANGES = ranges(SPACES)
const NON_SPACE_RANGES = ranges(complement(SPACES))
/** `.` in `u` mode without the `s` flag: any code point but the four line terminators (RE2's: any but \n). */
const DOT = '[^\\x{a}\\x{d}\\x{2028}\\x{2029}]'
const ANY = `[\\x{0}-\\x{${MAX_CODE_POINT.toString(16)}}]`
const NOTHING = `[^\\x{0}-\\x{${MAX_CODE_POINT.toString(16)}}]`

function hex(code: number): string {
  return `\\x{${code.toString(16)}}`
}

/** Unicode property names JavaScript takes and RE2 spells otherwise (or not at all). */
const PROPERTY_ALIASES: Record<string, string> = {
  Any: ANY,
  ASCII: '[\\x{0}-\\x{7f}]',
  Letter: 'L',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
}

interface Scan {
  readonly source: string
  at: number
}

/**
 * The RE2 spelling of a valid `u`-mode pattern, or undefined for what RE2 has no form of
 * (lookarounds, backreferences). Each construct whose meaning differs is spelled out: `\s` and `.`
 * as JavaScript's sets, `\uXXXX` (a surrogate pair as one code point), `\cX`, `\0` and literals as
 * `\x{…}`, `[^]` and `[]`, a class's `\b` (backspace), Unicode property names. Capture groups are
 * kept as plain groups: `test` reports no captures.
 */
export function toRe2(source: string): string | undefined {
  const scan: Scan = { source, at: 0 }
  let out = ''
  while (scan.at < source.length) {
    const char = source[scan.at]!
    let token: string | undefined
    if (char === '\\') token = escapeOutside(scan)
    else if (char === '[') token = characterClass(scan)
    else if (char === '(') token = group(scan)
    else if (char === '.') {
      token = DOT
      scan.at++
    } else if ('^$|)*+?{},'.includes(char) || /[0-9A-Za-z]/.test(char)) {
      token = char // quantifiers `{n,m}` are spelled alike; u mode allows no lone brace
      scan.at++
    } else token = literal(readCodePoint(scan))
    if (token === undefined) return undefined
    out += token
  }
  return out
}

function readCodePoint(scan: Scan): number {
  const code = scan.source.codePointAt(scan.at)!
  scan.at += code > 0xffff ? 2 : 1
  return code
}

function literal(code: number): string {
  return /[0-9A-Za-z]/.test(String.fromCodePoint(code)) ? String.fromCodePoint(code) : hex(code)
}

function group(scan: Scan): string | undefined {
  const rest = scan.source.slice(scan.at, scan.at + 4)
  if (rest.startsWith('(?:')) {
    scan.at += 3
    return '(?:'
  }
  const named = /^\(\?<([^>=!][^>]*)>/.exec(scan.source.slice(scan.at))
  if (named) {
    scan.at += named[0].length
    return '('
  }
  if (rest.startsWith('(?')) return undefined // lookahead, lookbehind, modifiers
  scan.at++
  return '('
}

/** An escape outside a class. */
function escapeOutside(scan: Scan): string | undefined {
  const next = scan.source[scan.at + 1]!
  if (next === 's' || next === 'S') {
    scan.at += 2
    return next === 's' ? `[${SPACE_RANGES}]` : `[${NON_SPACE_RANGES}]`
  }
  if (next === 'b' || next === 'B') {
    scan.at += 2
    return `\\${next}` // ASCII word boundaries in both
  }
  if (/[1-9]/.test(next) || next === 'k') return undefined // backreferences
  return escapeAtom(scan, false)
}

/**
 * An escape that stands for one character or a set, in or outside a class: `\d\D\w\W` (ASCII in
 * both), `\p{…}`, control escapes, `\0`, `\cX`, `\xHH`, `\uXXXX`, `\u{…}`, an escaped syntax char.
 */
function escapeAtom(scan: Scan, inClass: boolean): string | undefined {
  const { source } = scan
  const next = source[scan.at + 1]!
  if ('dDwW'.includes(next)) {
    scan.at += 2
    return `\\${next}`
  }
  if (inClass && (next === 's' || next === 'S')) {
    scan.at += 2
    return next === 's' ? SPACE_RANGES : NON_SPACE_RANGES
  }
  const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 }
  if (Object.hasOwn(simple, next) || (inClass && next === 'b')) {
    scan.at += 2
    return hex(next === 'b' ? 8 : simple[next]!)
  }
  if (next === 'p' || next === 'P') return property(scan, next === 'P', inClass)
  if (next === 'c') {
    const letter = source.charCodeAt(scan.at + 2)
    scan.at += 3
    return hex(letter % 32)
  }
  if (next === 'x') {
    const code = Number.parseInt(source.slice(scan.at + 2, scan.at + 4), 16)
    scan.at += 4
    return hex(code)
  }
  if (next === 'u') return unicodeEscape(scan)
  scan.at += 1
  return hex(readCodePoint(scan)) // an escaped syntax character (or `-` in a class): itself
}

function unicodeEscape(scan: Scan): string {
  const { source } = scan
  const braced = /^\\u\{([0-9a-fA-F]+)\}/.exec(source.slice(scan.at))
  if (braced) {
    scan.at += braced[0].length
    return hex(Number.parseInt(braced[1]!, 16))
  }
  const high = Number.parseInt(source.slice(scan.at + 2, scan.at + 6), 16)
  scan.at += 6
  const pair = /^\\u([dD][c-fC-F][0-9a-fA-F]{2})/.exec(source.slice(scan.at))
  if (high >= 0xd800 && high <= 0xdbff && pair) {
    scan.at += 6
    const low = Number.parseInt(pair[1]!, 16)
    return hex((high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000)
  }
  return hex(high)
}

function property(scan: Scan, negated: boolean, inClass: boolean): string | undefined {
  const match = /^\\[pP]\{([^}]*)\}/.exec(scan.source.slice(scan.at))!
  scan.at += match[0].length
  const [key, value] = match[1]!.includes('=') ? match[1]!.split('=') : [undefined, match[1]!]
  if (key !== undefined && !['General_Category', 'gc', 'Script', 'sc'].includes(key)) return undefined
  const category = key === undefined || key === 'General_Category' || key === 'gc'
  const name = category && Object.hasOwn(PROPERTY_ALIASES, value!) ? PROPERTY_ALIASES[value!]! : value!
  if (name.startsWith('[')) {
    // Any and ASCII: a set RE2 has no property name for.
    if (!negated) return inClass ? name.slice(1, -1) : name
    return inClass ? undefined : `[^${name.slice(1, -1)}]`
  }
  return `\\${negated ? 'P' : 'p'}{${name}}`
}

/** A character class `[…]` with its members spelled for RE2. */
function characterClass(scan: Scan): string | undefined {
  const { source } = scan
  scan.at++
  const negated = source[scan.at] === '^'
  if (negated) scan.at++
  let members = ''
  // The last member was one character, which a `-` makes the start of a range.
  let single = false
  while (source[scan.at] !== ']') {
    const char = source[scan.at]!
    if (char === '-' && single && source[scan.at + 1] !== ']') {
      scan.at++
      const end = source[scan.at] === '\\' ? escapeAtom(scan, true) : literal(readCodePoint(scan))
      if (end === undefined) return undefined
      members += `-${end}` // u mode checked the range's ends are characters, in order
      single = false
      continue
    }
    const start = scan.at
    const member = char === '\\' ? escapeAtom(scan, true) : literal(readCodePoint(scan))
    if (member === undefined) return undefined
    single = !/^\\[dDwWsSpP]/.test(source.slice(start, scan.at))
    members += member
  }
  scan.at++
  if (members === '') return negated ? ANY : NOTHING
  return `[${negated ? '^' : ''}${members}]`
}
