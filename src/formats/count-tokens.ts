import { createRequire } from 'node:module'

type Tokenizer = typeof import('gpt-tokenizer/encoding/o200k_base')

let tokenizer: Tokenizer | undefined

/**
 * The o200k tokenizer, loaded on first use: its ranks take ~35 MB of heap and ~0.2 s to load, and
 * only the process that renders the views (the build process, `toolgate lint`) counts tokens.
 */
function countO200k(text: string): number {
  tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as Tokenizer
  return tokenizer.countTokens(text)
}

/** Up to this many characters a document is counted whole (~0.1 s); above, sampled. */
export const EXACT_TOKEN_CHARS = 1 << 20
const SAMPLES = 16

export interface TokenCount {
  readonly tokens: number
  /** True when the count is extrapolated from samples of a document over EXACT_TOKEN_CHARS. */
  readonly estimated: boolean
}

/**
 * Tokens of a document's compact JSON text in o200k_base, the encoding of OpenAI's current models:
 * an estimate of the context it takes (providers add their own framing; Anthropic's tokenizer
 * differs). The tokenizer runs at ~11 MB/s, so a document over 1 MB (the Kubernetes API's OpenAI
 * document weighs 15.5 MB, 1.3 s) is estimated from 16 evenly spaced slices totalling 1 MB, scaled
 * by length: within 0.6% of the exact count on Kubernetes and Stripe, in ~0.1 s.
 */
export function countTokens(json: string): TokenCount {
  return countSample(tokenSample(json))
}

/** What counting a document needs: its text, or its samples and their scale (≤ 1 MB either way). */
export interface TokenSample {
  readonly texts: readonly string[]
  /** The document's length over the sampled length: 1 when counted whole. */
  readonly scale: number
}

/** A document's text to count, sampled above EXACT_TOKEN_CHARS, so it can be counted later elsewhere. */
export function tokenSample(json: string): TokenSample {
  // A copy, not V8's sliced string: a slice keeps its whole document alive until counted (the
  // build process counts after it answers; Kubernetes' four largest documents held 145 MB so).
  return sampleOf(
    sampleRanges(json.length).map(([start, end]) =>
      start === 0 && end >= json.length ? json : structuredClone(json.slice(start, end)),
    ),
    json.length,
  )
}

/**
 * tokenSample of a text read piece by piece, `length` UTF-16 units in all (known beforehand:
 * measureJson): each piece goes to `read` in order, only the sampled slices are copied, and
 * `sample()` gives them once the last piece is read. renderEager samples a format as it walks it,
 * never decoding bytes: Kubernetes' documents are not all ASCII, and sampling a kept document's
 * bytes decoded them whole (heap +25 MB for openai.json).
 */
export function textSampler(length: number): {
  readonly read: (text: string) => void
  sample(): TokenSample
} {
  const ranges = sampleRanges(length)
  const texts: string[] = []
  let pieces: string[] = []
  let offset = 0
  let next = 0
  return {
    read(text) {
      const end = offset + text.length
      // One piece may close a range and open the next.
      while (next < ranges.length && ranges[next]![0] < end) {
        const [from, to] = ranges[next]!
        const piece = text.slice(Math.max(from - offset, 0), Math.min(to - offset, text.length))
        if (piece) pieces.push(piece)
        if (to > end) break
        // A string of its own, not slices keeping their pieces alive.
        texts.push(structuredClone(pieces.join('')))
        pieces = []
        next++
      }
      offset = end
    },
    sample() {
      // An empty text's one empty range.
      for (; next < ranges.length; next++) texts.push(pieces.splice(0).join(''))
      return sampleOf(texts, length)
    },
  }
}

/** Where a text of `length` characters is sampled: whole up to EXACT_TOKEN_CHARS, else SAMPLES evenly spaced slices. */
function sampleRanges(length: number): (readonly [number, number])[] {
  if (length <= EXACT_TOKEN_CHARS) return [[0, length]]
  const size = Math.floor(EXACT_TOKEN_CHARS / SAMPLES)
  const step = Math.floor(length / SAMPLES)
  return Array.from({ length: SAMPLES }, (_, i) => [i * step, Math.min(i * step + size, length)] as const)
}

function sampleOf(texts: string[], length: number): TokenSample {
  const chars = texts.reduce((sum, text) => sum + text.length, 0)
  return { texts, scale: chars === length ? 1 : length / chars }
}

export function countSample({ texts, scale }: TokenSample): TokenCount {
  let tokens = 0
  for (const text of texts) tokens += countO200k(text)
  return scale === 1 ? { tokens, estimated: false } : { tokens: Math.round(tokens * scale), estimated: true }
}
