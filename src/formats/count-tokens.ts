import { createRequire } from 'node:module'

type Tokenizer = typeof import('gpt-tokenizer/encoding/o200k_base')

let tokenizer: Tokenizer | undefined

/**
 * The o200k tokenizer, loaded on first use: its ranks take ~35 MB of heap and ~0.2 s to load, and
 * only the process that renders the views (the build worker, `toolgate lint`) counts tokens.
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
  // build worker counts after it answers; Kubernetes' four largest documents held 145 MB so).
  return sampleText(json.length, (start, end) =>
    start === 0 && end >= json.length ? json : structuredClone(json.slice(start, end)),
  )
}

/**
 * tokenSample of a document's UTF-8 bytes in chunks of whole texts (jsonChunks), `chars` each
 * chunk's UTF-16 length: read a sample at a time, never joined or decoded whole. An ASCII chunk's
 * characters are its bytes; another is decoded on its own (JSON.stringify escapes lone surrogates,
 * so each chunk is well-formed UTF-8). Kubernetes' formats are not all ASCII: joined and decoded,
 * a 16.5 MB format took 33 MB more for its sample.
 */
export function tokenSampleOfChunks(chunks: readonly Buffer[], chars: readonly number[]): TokenSample {
  const length = chars.reduce((sum, n) => sum + n, 0)
  return sampleText(length, (start, end) => {
    const pieces: string[] = []
    let offset = 0
    for (const [i, chunk] of chunks.entries()) {
      const n = chars[i]!
      const from = Math.max(start - offset, 0)
      const to = Math.min(end - offset, n)
      if (from < to)
        pieces.push(
          n === chunk.length ? chunk.toString('latin1', from, to) : chunk.toString().slice(from, to),
        )
      offset += n
      if (offset >= end) break
    }
    // A string of its own, not a slice keeping a decoded chunk alive.
    return structuredClone(pieces.join(''))
  })
}

/** The sample of a text of `length` characters, `slice(start, end)` giving its characters as a string of their own. */
function sampleText(length: number, slice: (start: number, end: number) => string): TokenSample {
  if (length <= EXACT_TOKEN_CHARS) return { texts: [slice(0, length)], scale: 1 }
  const size = Math.floor(EXACT_TOKEN_CHARS / SAMPLES)
  const step = Math.floor(length / SAMPLES)
  const texts: string[] = []
  let chars = 0
  for (let i = 0; i < SAMPLES; i++) {
    const text = slice(i * step, Math.min(i * step + size, length))
    texts.push(text)
    chars += text.length
  }
  return { texts, scale: length / chars }
}

export function countSample({ texts, scale }: TokenSample): TokenCount {
  let tokens = 0
  for (const text of texts) tokens += countO200k(text)
  return scale === 1 ? { tokens, estimated: false } : { tokens: Math.round(tokens * scale), estimated: true }
}
