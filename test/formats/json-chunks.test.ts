import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { EXACT_TOKEN_CHARS, tokenSample, tokenSampleOfChunks } from '../../src/formats/count-tokens.js'
import { ChunkPool, joinChunks, jsonChunks } from '../../src/formats/served-document.js'
import { stringifiable } from '../helpers/json-values.js'

// The build worker writes each format's bytes into chunks (pooled across formats) and samples its
// tokens from them: the bytes must be JSON.stringify's, the samples those of the whole text.

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

function assertChunks(value: unknown, pool?: ChunkPool) {
  const text = JSON.stringify(value)
  const written = jsonChunks(value, pool)
  assert.ok(joinChunks(written).equals(Buffer.from(text)), text)
  assert.equal(written.bytes, Buffer.byteLength(text))
  assert.equal(written.chunks.length, written.chars.length)
  // Each chunk holds whole texts: it decodes on its own to its own count of UTF-16 units.
  assert.deepEqual(
    written.chunks.map((chunk) => chunk.toString().length),
    written.chars,
  )
  assert.equal(written.chunks.map((chunk) => chunk.toString()).join(''), text)
  return written
}

describe('jsonChunks: a document written as UTF-8 chunks', () => {
  test('the bytes of JSON.stringify for generated values: non-ASCII, lone surrogates, nested, toJSON, undefined members', () => {
    const pool = new ChunkPool()
    fc.assert(
      fc.property(stringifiable, (value) => {
        if (JSON.stringify(value) === undefined) return
        pool.release(assertChunks(value, pool))
      }),
      { numRuns: 2_000 },
    )
  })

  test('large documents over many chunks and members larger than a chunk, the pool reused between them', () => {
    const pool = new ChunkPool()
    for (const [unit, tools, size] of [
      ['abc', 3_000, 900],
      ['é🙂"\\\u0000', 2_000, 700],
      ['x', 3, 3 * 1024 * 1024],
      ['🙂', 2, 700 * 1024],
    ] as const) {
      const written = assertChunks(documentOf(unit, tools, size), pool)
      assert.ok(written.chunks.length > 1, `${unit}: ${written.chunks.length} chunk(s)`)
      pool.release(written)
    }
    assert.ok(pool.chunks.length > 0)
  })

  test('the token samples of the chunks are those of the whole text, ASCII, not, or both', () => {
    const pool = new ChunkPool()
    for (const [unit, tools, size] of [
      ['{"a":1}', 10, 50],
      ['{"a":1}', 3_000, 900],
      ['é🙂x', 3_000, 900],
      ['é', 1, EXACT_TOKEN_CHARS],
    ] as const) {
      const value = documentOf(unit, tools, size)
      // ASCII members after non-ASCII ones: some chunks are ASCII, some not.
      value.namespaces.push(documentOf('plain ascii', 2_000, 800).namespaces[0]!)
      const written = jsonChunks(value, pool)
      assert.deepEqual(
        tokenSampleOfChunks(written.chunks, written.chars),
        tokenSample(JSON.stringify(value)),
        `${unit} × ${tools}`,
      )
      pool.release(written)
    }
  })

  test('chunks cut anywhere between characters give the samples of the whole text, below and above the exact bound', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('{"a":1,"b":"x"}', 'é🙂"\\u0000', 'abc'),
        fc.constantFrom(10, EXACT_TOKEN_CHARS, EXACT_TOKEN_CHARS + 1, 3 * EXACT_TOKEN_CHARS + 17),
        fc.array(fc.nat(), { maxLength: 40 }),
        (unit, length, points) => {
          const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length)
          const parts = cutBetweenCharacters(text, points)
          const chunks = parts.map((part) => Buffer.from(part))
          assert.deepEqual(
            tokenSampleOfChunks(
              chunks,
              parts.map((part) => part.length),
            ),
            tokenSample(text),
          )
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
