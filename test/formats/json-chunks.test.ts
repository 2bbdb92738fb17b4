import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { EXACT_TOKEN_CHARS, textSampler, tokenSample } from '../../src/formats/count-tokens.js'
import {
  joinChunks,
  jsonBuffer,
  jsonChunks,
  measureJson,
  walkJson,
} from '../../src/formats/served-document.js'
import { stringifiable } from '../helpers/json-values.js'

// A document is never one string. The build worker measures each format from its text as it is
// walked (measureJson), samples its tokens from a second walk, and writes an eager one into a
// buffer of its size as it walks it (jsonBuffer); other documents are written into chunks
// (jsonChunks). The bytes and lengths must be JSON.stringify's, the samples those of the whole text.

/** A document of `tools` members of about `size` characters each, from `unit`. */
const documentOf = (unit: string, tools: number, size: number) => ({
  namespaces: [
    {
      tools: Array.from({ length: tools }, (_, i) => ({
        name: `tool_${i}`,
        text: unit.repeat(Math.ceil(size / unit.length) + (i % 5)),
      })),
    },
  ],
})

const LARGE: readonly (readonly [string, number, number])[] = [
  ['abc', 3_000, 900],
  ['é🙂"\\\u0000', 2_000, 700],
  ['x', 3, 3 * 1024 * 1024],
  ['🙂', 2, 700 * 1024],
]

describe('jsonChunks and jsonBuffer: a document written as UTF-8 bytes', () => {
  test('the bytes of JSON.stringify for generated values: non-ASCII, lone surrogates, nested, toJSON, undefined members', () => {
    fc.assert(
      fc.property(stringifiable, (value) => {
        const text = JSON.stringify(value)
        if (text === undefined) return
        const written = jsonChunks(value)
        assert.ok(joinChunks(written).equals(Buffer.from(text)), text)
        assert.equal(written.bytes, Buffer.byteLength(text))
        assert.ok(jsonBuffer(value, measureJson(value).bytes).equals(Buffer.from(text)), text)
      }),
      { numRuns: 2_000 },
    )
  })

  test('large documents over many chunks and members larger than a chunk', () => {
    for (const [unit, tools, size] of LARGE) {
      const value = documentOf(unit, tools, size)
      const text = Buffer.from(JSON.stringify(value))
      const written = jsonChunks(value)
      assert.ok(written.chunks.length > 1, `${unit}: ${written.chunks.length} chunk(s)`)
      assert.ok(joinChunks(written).equals(text), unit)
      assert.ok(jsonBuffer(value, measureJson(value).bytes).equals(text), unit)
    }
  })

  test("jsonBuffer hands each text it writes to its reader, and refuses a size that is not the document's", () => {
    const value = documentOf('é🙂x', 300, 90)
    const texts: string[] = []
    const { bytes } = measureJson(value)
    jsonBuffer(value, bytes, (text) => texts.push(text))
    assert.equal(texts.join(''), JSON.stringify(value))
    for (const wrong of [bytes - 1, bytes + 1, 0])
      assert.throws(() => jsonBuffer(value, wrong), new RegExp(`not the ${wrong} bytes it was measured at`))
  })
})

describe('measureJson and textSampler: a format measured, never written', () => {
  test('the UTF-8 bytes and UTF-16 length of JSON.stringify for generated values, and walkJson its text', () => {
    fc.assert(
      fc.property(stringifiable, (value) => {
        const text = JSON.stringify(value)
        if (text === undefined) return
        assert.deepEqual(measureJson(value), { bytes: Buffer.byteLength(text), chars: text.length })
        const pieces: string[] = []
        walkJson(value, (piece) => pieces.push(piece))
        assert.equal(pieces.join(''), text)
      }),
      { numRuns: 2_000 },
    )
  })

  test('the samples of a document walked are those of its whole text, below and above the exact bound', () => {
    for (const [unit, tools, size] of [
      ['{"a":1}', 10, 50],
      ['{"a":1}', 3_000, 900],
      ['é🙂x', 3_000, 900],
      ['x', 3, 3 * EXACT_TOKEN_CHARS],
    ] as const) {
      const value = documentOf(unit, tools, size)
      const text = JSON.stringify(value)
      const sampler = textSampler(measureJson(value).chars)
      walkJson(value, sampler.read)
      assert.deepEqual(sampler.sample(), tokenSample(text), `${unit} × ${tools}`)
    }
  })

  test('pieces cut anywhere give the samples of the whole text: one piece spanning ranges, empty pieces, an empty text', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('{"a":1,"b":"x"}', 'é🙂"\\u0000', 'abc'),
        fc.constantFrom(0, 10, EXACT_TOKEN_CHARS, EXACT_TOKEN_CHARS + 1, 3 * EXACT_TOKEN_CHARS + 17),
        fc.array(fc.nat(), { maxLength: 40 }),
        (unit, length, points) => {
          const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length)
          // A cut at 0 and the last piece are empty; few cuts make pieces spanning several ranges.
          const parts = [...cutBetweenCharacters(text, points), '']
          const sampler = textSampler(text.length)
          for (const part of parts) sampler.read(part)
          assert.deepEqual(sampler.sample(), tokenSample(text))
        },
      ),
      { numRuns: 60 },
    )
  })
})

/** `text` cut at the given points, moved off the middle of a surrogate pair (a chunk holds whole texts). */
function cutBetweenCharacters(text: string, points: readonly number[]): string[] {
  const within = (point: number) => {
    const code = text.charCodeAt(point - 1)
    return code >= 0xd800 && code <= 0xdbff ? point + 1 : point
  }
  const sorted = [...new Set(points.map((p) => within(p % (text.length + 1))))].sort((a, b) => a - b)
  const parts: string[] = []
  let start = 0
  for (const point of sorted) {
    parts.push(text.slice(start, point))
    start = point
  }
  parts.push(text.slice(start))
  return parts
}
