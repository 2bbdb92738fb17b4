import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import {
  EXACT_TOKEN_CHARS,
  tokenSample,
  tokenSampleOfBytes,
  tokenSampleOfTexts,
} from '../../src/formats/count-tokens.js'
import { jsonTexts } from '../../src/formats/served-document.js'

// The build worker samples a document's tokens from its parts (a format only measured) or its
// bytes (a document kept) instead of one string: the samples must be those of the whole text.

/** A text of about `length` characters from `unit`, so that samples cross parts' boundaries. */
const textOf = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length)

/** `text` cut into consecutive parts at the given points. */
function cut(text: string, points: readonly number[]): string[] {
  const sorted = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b)
  const parts: string[] = []
  let start = 0
  for (const point of sorted) {
    parts.push(text.slice(start, point))
    start = point
  }
  parts.push(text.slice(start))
  return parts
}

describe('token samples of a document in parts or as bytes', () => {
  test('the parts of a text give the samples of the whole text, below and above the exact bound', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('{"a":1,"b":"x"}', 'é🙂"\\u0000', 'abc'),
        fc.constantFrom(10, EXACT_TOKEN_CHARS, EXACT_TOKEN_CHARS + 1, 3 * EXACT_TOKEN_CHARS + 17),
        fc.array(fc.nat(), { maxLength: 40 }),
        (unit, length, points) => {
          const text = textOf(unit, length)
          assert.deepEqual(tokenSampleOfTexts(cut(text, points)), tokenSample(text))
        },
      ),
      { numRuns: 60 },
    )
  })

  test('the UTF-8 bytes of a text give the samples of the text, ASCII or not', () => {
    for (const unit of ['{"name":"list_pods","n":12}', 'é🙂x', 'plain ascii'])
      for (const length of [0, 5, EXACT_TOKEN_CHARS, EXACT_TOKEN_CHARS + 3, 2 * EXACT_TOKEN_CHARS + 101]) {
        const text = textOf(unit, length)
        assert.deepEqual(tokenSampleOfBytes(Buffer.from(text)), tokenSample(text), `${unit} × ${length}`)
      }
  })

  test('jsonTexts joined is JSON.stringify, in more than one part for a large document', () => {
    const value = {
      tools: Array.from({ length: 5_000 }, (_, i) => ({ id: `t${i}`, text: 'é🙂'.repeat(40) })),
    }
    const texts = jsonTexts(value)
    assert.ok(texts.length > 1)
    assert.equal(texts.join(''), JSON.stringify(value))
  })
})
