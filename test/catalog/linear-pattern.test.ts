// Issue 41 class 1: spec patterns run by RE2 must mean what they mean in ECMAScript u mode (what
// JSON Schema and the advertised schema say). Generated patterns (safe ones: bounded, small) and
// generated strings: the RE2 translation and V8 agree on every pair, or the pattern is refused.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { Worker } from 'node:worker_threads'
import fc from 'fast-check'
import { linearPattern } from '../../src/catalog/linear-pattern.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'

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

  // A hang check, not a speed bound: a backtracking engine takes 2^n steps on these and would
  // never end on 1 MiB. The matches run in a worker, so a hang is stopped (terminate) and fails.
  test('catastrophic patterns on inputs up to 1 MiB: linear time', async () => {
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads')
import(workerData.module).then(({ linearPattern }) => {
  const family = [
    ['^(a+)+$', (n) => 'a'.repeat(n - 1) + 'b'],
    ['(x+x+)+y', (n) => 'x'.repeat(n)],
    ['^(a|a)*$', (n) => 'a'.repeat(n - 1) + 'b'],
    ['(a*)*b', (n) => 'a'.repeat(n)],
    ['^(\\w+\\s?)*$', (n) => 'ab '.repeat(n / 3) + '!'],
    ['^(((a+)+)+)+$', (n) => 'a'.repeat(n - 1) + '!'],
  ]
  const results = []
  for (const [pattern, attack] of family)
    for (const n of [30, 3000, 1048576]) results.push([pattern + ' x ' + n, linearPattern(pattern).test(attack(n))])
  parentPort.postMessage(results)
})`,
      {
        eval: true,
        workerData: { module: new URL('../../src/catalog/linear-pattern.js', import.meta.url).href },
      },
    )
    const timer = setTimeout(() => void worker.terminate(), HANG_BOUND_MS)
    try {
      const [results] = (await Promise.race([
        once(worker, 'message'),
        once(worker, 'exit').then(() => assert.fail(`the matches hung: stopped after ${HANG_BOUND_MS} ms`)),
      ])) as [[string, boolean][]]
      assert.equal(results.length, 18)
      for (const [what, matched] of results) assert.equal(matched, false, what)
    } finally {
      clearTimeout(timer)
      await worker.terminate()
    }
  })
})
