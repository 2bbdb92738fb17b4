// Issue 41 class 1: spec patterns run by RE2 must mean what they mean in ECMAScript u mode (what
// JSON Schema and the advertised schema say). Generated patterns (safe ones: bounded, small) and
// generated strings: the RE2 translation and V8 agree on every pair, or the pattern is refused.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { linearPattern } from '../../src/catalog/linear-pattern.js'

const ATOMS = [
  'a',
  'b',
  '.',
  '\\s',
  '\\S',
  '\\d',
  '\\w',
  '\\W',
  '[a-c]',
  '[^a]',
  '[\\s-]',
  '[^\\S]',
  '[a-z-9]',
  '[\\w.-]',
  '[^]',
  '\\u00e9',
  '\\u{1F600}',
  '\\uD83D\\uDE00',
  '\\p{L}',
  '\\P{Lu}',
  '\\p{Script=Greek}',
  '\\p{Alphabetic}',
  '[\\p{White_Space}x]',
  '\\x41',
  '\\cJ',
  '\\$',
  '\\/',
  '\\.',
  '[\\b]',
  'é',
  '😀',
  ' ',
]
const QUANTIFIERS = ['', '', '?', '*', '+', '{2}', '{1,3}', '*?']
const piece = fc
  .tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS))
  .map(([atom, quantifier]) => atom + quantifier)
const patternArb = fc
  .tuple(
    fc.constantFrom('', '^', '\\b'),
    fc.array(
      fc.oneof(
        piece,
        piece.map((p) => `(${p}|b)`),
        piece.map((p) => `(?:${p})`),
      ),
      { maxLength: 4 },
    ),
    fc.constantFrom('', '$', '\\b'),
  )
  .map(([head, body, tail]) => head + body.join('') + tail)
const CHARS = [
  'a',
  'b',
  'c',
  'A',
  '9',
  '_',
  '-',
  '.',
  ' ',
  '\n',
  '\r',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\t',
  'é',
  'α',
  '😀',
  '\ud800',
  '$',
  '/',
  'ж',
]
const textArb = fc.array(fc.constantFrom(...CHARS), { maxLength: 8 }).map((chars) => chars.join(''))

describe('linear patterns', () => {
  test('generated u-mode patterns × generated strings: RE2 and V8 agree', () => {
    fc.assert(
      fc.property(patternArb, fc.array(textArb, { minLength: 1, maxLength: 6 }), (pattern, texts) => {
        const linear = linearPattern(pattern)
        assert.ok(linear, `${pattern} has a linear form`)
        const v8 = new RegExp(pattern, 'u')
        for (const text of texts)
          assert.equal(
            linear.test(text),
            v8.test(text),
            `${JSON.stringify(pattern)} on ${JSON.stringify(text)}`,
          )
      }),
      { numRuns: 3_000, seed: 41 },
    )
  })

  test('what RE2 cannot run is refused, never approximated', () => {
    for (const pattern of [
      '(?=a)b',
      '(?!a)',
      '(?<=a)b',
      '(?<!a)b',
      '(a)\\1',
      '(?<n>a)\\k<n>',
      'a{1001}',
      '\\p{scx=Grek}',
    ])
      assert.equal(linearPattern(pattern), undefined, pattern)
    assert.equal(linearPattern('(unclosed'), undefined, 'no regex at all')
  })

  test('catastrophic patterns on inputs up to 1 MiB: linear time', () => {
    const family: [string, (n: number) => string][] = [
      ['^(a+)+$', (n) => `${'a'.repeat(n - 1)}b`],
      ['(x+x+)+y', (n) => 'x'.repeat(n)],
      ['^(a|a)*$', (n) => `${'a'.repeat(n - 1)}b`],
      ['(a*)*b', (n) => 'a'.repeat(n)],
      ['^(\\w+\\s?)*$', (n) => `${'ab '.repeat(n / 3)}!`],
      ['^(((a+)+)+)+$', (n) => `${'a'.repeat(n - 1)}!`],
    ]
    for (const [pattern, attack] of family) {
      const linear = linearPattern(pattern)!
      for (const n of [30, 3_000, 1_048_576]) {
        const started = performance.now()
        assert.equal(linear.test(attack(n)), false)
        const ms = performance.now() - started
        assert.ok(ms < 2_000, `${pattern} × ${n}: ${Math.round(ms)} ms`)
      }
    }
  })
})
