import type { Secret } from '../config/secrets.js'
import { type BoundedAnswer, GetFailed, getBounded } from '../util/bounded-get.js'
import { isRecord } from '../util/is-record.js'

/** An OpenAI-compatible `/embeddings` endpoint the operator configures (search.embeddings). */
export interface EmbeddingsOptions {
  /** The API's base URL: `https://api.openai.com/v1`, Ollama's `http://localhost:11434/v1` … */
  readonly url: string
  readonly model: string
  /** Sent as `Authorization: Bearer …` when given. */
  readonly apiKey?: Secret
  /** One bound on each request: a query waits this long at most before ranking on words alone. */
  readonly timeoutMs: number
  /** Texts per request while indexing a catalog. */
  readonly batchSize: number
}

/** Why an endpoint gave no usable vectors; the message names the endpoint and what was wrong. */
export class EmbeddingsFailed extends Error {
  constructor(
    readonly reason: 'unreachable' | 'timeout' | 'status' | 'malformed' | 'dimensions',
    message: string,
  ) {
    super(message)
    this.name = 'EmbeddingsFailed'
  }
}

/** Turns texts into unit vectors (cosine similarity is then a dot product). */
export interface Embedder {
  readonly model: string
  embed(texts: readonly string[]): Promise<Float32Array[]>
}

/** Vectors past this many dimensions are no embedding any provider ships (OpenAI's largest: 3,072). */
const MAX_DIMENSIONS = 16_384

/**
 * The client of an OpenAI-compatible `POST {url}/embeddings` (OpenAI, Azure, Ollama, TEI, vLLM):
 * `{ model, input: [texts] }` in, `{ data: [{ index, embedding: [numbers] }] }` out. An answer is
 * checked whole before any vector is used: one per text, every number finite, every vector of one
 * size; anything else is an EmbeddingsFailed, never a vector of garbage.
 */
export function createEmbeddingsClient(options: EmbeddingsOptions): Embedder {
  const endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey.reveal()}`
  return {
    model: options.model,
    async embed(texts) {
      if (texts.length === 0) return []
      let answer: BoundedAnswer
      try {
        answer = await getBounded(endpoint, {
          timeoutMs: options.timeoutMs,
          // 4 bytes of JSON per number at the least: a batch of the largest vectors fits.
          maxBytes: Math.max(1, texts.length) * MAX_DIMENSIONS * 24,
          headers,
          body: JSON.stringify({ model: options.model, input: texts }),
        })
      } catch (err) {
        if (!(err instanceof GetFailed)) throw err
        throw new EmbeddingsFailed(err.reason === 'timeout' ? 'timeout' : 'unreachable', err.message)
      }
      if (answer.status < 200 || answer.status > 299)
        throw new EmbeddingsFailed(
          'status',
          `${endpoint} answered ${answer.status} ${answer.statusText}`.trim(),
        )
      return vectorsOf(answer.text, texts.length, endpoint)
    },
  }
}

/** The answer's vectors in the order of the texts, each scaled to unit length. */
export function vectorsOf(text: string, count: number, endpoint: string): Float32Array[] {
  const malformed = (what: string) => new EmbeddingsFailed('malformed', `${endpoint} answered ${what}`)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw malformed('no JSON')
  }
  const data = isRecord(body) ? body.data : undefined
  if (!Array.isArray(data)) throw malformed('no data array')
  if (data.length !== count) throw malformed(`${data.length} embeddings for ${count} texts`)
  const vectors: Float32Array[] = new Array(count)
  let size: number | undefined
  for (const [position, item] of data.entries()) {
    const embedding = isRecord(item) ? item.embedding : undefined
    const index = isRecord(item) && item.index !== undefined ? item.index : position
    if (
      !Number.isInteger(index) ||
      (index as number) < 0 ||
      (index as number) >= count ||
      vectors[index as number]
    )
      throw malformed(`data[${position}].index ${JSON.stringify(index)}, not one of the texts' positions`)
    if (!Array.isArray(embedding) || embedding.length === 0 || embedding.length > MAX_DIMENSIONS)
      throw malformed(`data[${position}].embedding that is no array of 1 to ${MAX_DIMENSIONS} numbers`)
    if (size !== undefined && embedding.length !== size)
      throw new EmbeddingsFailed(
        'dimensions',
        `${endpoint} answered vectors of ${size} and ${embedding.length} dimensions in one answer`,
      )
    size = embedding.length
    vectors[index as number] = unit(embedding, () =>
      malformed(`data[${position}].embedding with a value that is no finite number`),
    )
  }
  return vectors
}

function unit(values: readonly unknown[], invalid: () => Error): Float32Array {
  // Scaled by the largest magnitude first: 1e300 is a finite JSON number whose square is not.
  let largest = 0
  for (const value of values) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid()
    largest = Math.max(largest, Math.abs(value))
  }
  const vector = new Float32Array(values.length)
  // A zero vector points nowhere: it stays zero and matches nothing.
  if (largest === 0) return vector
  let norm = 0
  for (const value of values as number[]) norm += (value / largest) ** 2
  const length = Math.sqrt(norm)
  for (let i = 0; i < vector.length; i++) vector[i] = (values[i] as number) / largest / length
  return vector
}
