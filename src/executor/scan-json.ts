/**
 * Whether the bytes from `start` on are one JSON text that `JSON.parse(bytes.toString('utf8'))`
 * accepts, found without building it: no string, no object, no number is made (issue 20: the
 * answer's JSON check parsed every answer only to throw the result away).
 *
 * Byte-exact with JSON.parse of the UTF-8 decoding: the decoder turns every ASCII byte into itself
 * and every other byte into characters at U+0080 or above (U+FFFD for bytes that do not decode),
 * so the grammar's ASCII can be read off the bytes, and a byte ≥ 0x80 is allowed where JSON allows
 * any character of U+0020 or above: inside a string. Nesting is kept on a stack of its own, as
 * V8's parser does (any depth).
 */
export function scanJson(bytes: Uint8Array, start: number): boolean {
  const n = bytes.length
  let i = start
  let depth = 0
  // Containers open: 1 object, 2 array. Shared (the scan is synchronous); a deeper text grows a
  // copy of its own, dropped after the scan, so a hostile answer cannot leave a large stack behind.
  let stack = STACK
  for (;;) {
    // A value is expected at i.
    i = skipSpace(bytes, i, n)
    if (i >= n) return false
    let c = bytes[i]!
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      i = skipSpace(bytes, i + 1, n)
      if (i >= n) return false
      const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET
      if (bytes[i] === close) {
        i++
      } else {
        if (depth === stack.length) stack = grow(stack)
        stack[depth++] = c === OPEN_BRACE ? OBJECT : ARRAY
        if (c === OPEN_BRACE) {
          i = member(bytes, i, n)
          if (i < 0) return false
        }
        continue
      }
    } else if (c === QUOTE) {
      i = string(bytes, i + 1, n)
      if (i < 0) return false
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      i = number(bytes, i, n)
      if (i < 0) return false
    } else if (c === LOWER_T) {
      if (!literal(bytes, i, n, TRUE)) return false
      i += 4
    } else if (c === LOWER_F) {
      if (!literal(bytes, i, n, FALSE)) return false
      i += 5
    } else if (c === LOWER_N) {
      if (!literal(bytes, i, n, NULL)) return false
      i += 4
    } else {
      return false
    }
    // A value ended at i: what may follow it.
    for (;;) {
      i = skipSpace(bytes, i, n)
      if (depth === 0) return i === n
      if (i >= n) return false
      c = bytes[i]!
      const open = stack[depth - 1]
      if (c === COMMA) {
        i++
        if (open === OBJECT) {
          i = member(bytes, skipSpace(bytes, i, n), n)
          if (i < 0) return false
        }
        break
      }
      if (c !== (open === OBJECT ? CLOSE_BRACE : CLOSE_BRACKET)) return false
      depth--
      i++
    }
  }
}

const OBJECT = 1
const ARRAY = 2
const STACK: Uint8Array = new Uint8Array(64)

function grow(stack: Uint8Array): Uint8Array {
  const bigger = new Uint8Array(stack.length * 2)
  bigger.set(stack)
  return bigger
}

const TAB = 0x09
const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const QUOTE = 0x22
const PLUS = 0x2b
const COMMA = 0x2c
const MINUS = 0x2d
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const COLON = 0x3a
const UPPER_E = 0x45
const OPEN_BRACKET = 0x5b
const BACKSLASH = 0x5c
const CLOSE_BRACKET = 0x5d
const LOWER_E = 0x65
const LOWER_F = 0x66
const LOWER_N = 0x6e
const LOWER_T = 0x74
const LOWER_U = 0x75
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]
const NULL = [0x6e, 0x75, 0x6c, 0x6c]

/** The characters allowed after a backslash, besides `u`: `"` `\` `/` `b` `f` `n` `r` `t`. */
const SIMPLE_ESCAPE = new Uint8Array(128)
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1
const HEX = new Uint8Array(128)
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1

function skipSpace(bytes: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = bytes[i]!
    if (c !== SPACE && c !== LF && c !== CR && c !== TAB) return i
    i++
  }
  return i
}

/** An object member's name and colon, from its opening quote at i: the index after the colon, or -1. */
function member(bytes: Uint8Array, i: number, n: number): number {
  if (i >= n || bytes[i] !== QUOTE) return -1
  i = string(bytes, i + 1, n)
  if (i < 0) return -1
  i = skipSpace(bytes, i, n)
  return i < n && bytes[i] === COLON ? i + 1 : -1
}

/** A string's contents from after its opening quote: the index after its closing quote, or -1. */
function string(bytes: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = bytes[i]!
    if (c === QUOTE) return i + 1
    if (c < SPACE) return -1
    if (c === BACKSLASH) {
      if (i + 1 >= n) return -1
      const e = bytes[i + 1]!
      if (e === LOWER_U) {
        if (i + 5 >= n) return -1
        for (let k = i + 2; k < i + 6; k++) if (bytes[k]! >= 128 || HEX[bytes[k]!] === 0) return -1
        i += 6
      } else if (e < 128 && SIMPLE_ESCAPE[e] === 1) {
        i += 2
      } else {
        return -1
      }
    } else {
      i++
    }
  }
  return -1
}

/** A number from its first character: the index after it, or -1. */
function number(bytes: Uint8Array, i: number, n: number): number {
  if (bytes[i] === MINUS) i++
  if (i >= n) return -1
  const first = bytes[i]!
  if (first === ZERO) i++
  else if (first > ZERO && first <= NINE) i = digits(bytes, i + 1, n)
  else return -1
  if (i < n && bytes[i] === DOT) {
    const end = digits(bytes, i + 1, n)
    if (end === i + 1) return -1
    i = end
  }
  if (i < n && (bytes[i] === LOWER_E || bytes[i] === UPPER_E)) {
    i++
    if (i < n && (bytes[i] === PLUS || bytes[i] === MINUS)) i++
    const end = digits(bytes, i, n)
    if (end === i) return -1
    i = end
  }
  return i
}

function digits(bytes: Uint8Array, i: number, n: number): number {
  while (i < n && bytes[i]! >= ZERO && bytes[i]! <= NINE) i++
  return i
}

function literal(bytes: Uint8Array, i: number, n: number, word: readonly number[]): boolean {
  if (i + word.length > n) return false
  for (let k = 0; k < word.length; k++) if (bytes[i + k] !== word[k]) return false
  return true
}
