import { hash } from 'node:crypto'
import type { ToolMatch, ToolSearchIndex, ToolSearchOptions } from '../catalog/search-index.js'
import type { Catalog, Tool } from '../catalog/types.js'
import { type Embedder, EmbeddingsFailed } from './embeddings.js'

/** What /ready says of the ranking: words alone, or words fused with an embeddings endpoint's meaning. */
export interface RankingStatus {
  readonly ranking: 'lexical' | 'lexical+semantic'
  readonly embeddings?: {
    readonly model: string
    /** `indexing` until the serving catalog's tools have vectors; `failing` while the endpoint gives none. */
    readonly status: 'indexing' | 'ok' | 'failing'
    /** Tools of the serving catalog with a vector. */
    readonly vectors: number
    /** The latest failure, when the endpoint is failing: searches rank by words meanwhile. */
    readonly warning?: string
  }
}

/** Ranks a catalog's tools for a task in words: every search route asks it (REST, MCP, explorer). */
export interface ToolRanker {
  rank(
    search: ToolSearchIndex,
    catalog: Catalog,
    query: string,
    options: ToolSearchOptions,
  ): Promise<ToolMatch[]>
  /** Starts giving the tools of a catalog that now serves their vectors; until then it ranks by words. */
  prepare(catalog: Catalog): void
  status(): RankingStatus
  close(): void
}

export interface RankerOptions {
  /** The failure of an index batch or a query's vector, by cause (a metric). */
  readonly onFailure?: (stage: 'index' | 'query', reason: EmbeddingsFailed['reason']) => void
  /** A failed indexing is tried again after this long (the endpoint may be back). */
  readonly retryMs?: number
}

/** Words alone: the default install (no embeddings endpoint configured). */
export const LEXICAL_RANKER: ToolRanker = {
  rank: async (search, _catalog, query, options) => search.search(query, options),
  prepare: () => undefined,
  status: () => ({ ranking: 'lexical' }),
  close: () => undefined,
}

/** How deep each list goes into the fusion: the words' and the meaning's best this many. */
const FUSION_DEPTH = 50
/**
 * Reciprocal rank fusion's constant (Cormack et al. 2009: 60). Measured on the evaluation set's
 * tune half with an in-process sentence encoder (issue 43): 10 ranked best of 10, 30 and 60.
 */
const FUSION_K = 10
/** What of a tool is embedded: its name, title and the start of its description. */
const EMBEDDED_DESCRIPTION = 1_000
/** A query is embedded up to this many characters (the routes take at most 500). */
const EMBEDDED_QUERY = 2_000

interface ToolVectors {
  readonly tools: readonly Tool[]
  /** One unit vector per tool, in the tools' order. */
  readonly vectors: readonly Float32Array[]
}

/**
 * Words fused with meaning: each catalog that serves gets its tools' vectors from the endpoint in
 * the background (cached by the embedded text's hash, so a reload asks only for tools it changed),
 * and each query's vector within the endpoint's timeout. Whatever fails — the endpoint down, slow,
 * answering garbage or vectors of another size — the search ranks by words, counts the failure and
 * says it in /ready; it never fails the search.
 */
export function createToolRanker(
  embedder: Embedder,
  batchSize: number,
  options: RankerOptions = {},
): ToolRanker {
  const retryMs = options.retryMs ?? 60_000
  const ready = new WeakMap<Catalog, ToolVectors>()
  let cache = new Map<string, Float32Array>()
  let latest: Catalog | undefined
  let indexed = 0
  let warning: string | undefined
  let indexing = false
  let retry: NodeJS.Timeout | undefined
  let closed = false

  const fail = (stage: 'index' | 'query', err: unknown) => {
    // Anything else thrown on the way is a failure of the endpoint's stage too: a search never fails.
    const failed = err instanceof EmbeddingsFailed ? err : new EmbeddingsFailed('malformed', String(err))
    warning = `${stage === 'index' ? 'indexing the tools' : 'a query'} failed, searches rank by words: ${failed.message}`
    options.onFailure?.(stage, failed.reason)
  }

  const index = async (catalog: Catalog) => {
    const tools = catalog.tools.filter((tool) => !tool.ignored)
    const keyed = tools.map((tool) => {
      const text = embeddedText(tool)
      return [keyOf(embedder.model, text), text] as const
    })
    const texts = new Map(keyed)
    const keys = [...texts.keys()]
    const missing = keys.filter((key) => !cache.has(key))
    for (let start = 0; start < missing.length; start += batchSize) {
      if (closed || catalog !== latest) return
      const batch = missing.slice(start, start + batchSize)
      const vectors = await embedder.embed(batch.map((key) => texts.get(key)!))
      const size = cache.values().next().value?.length ?? vectors[0]?.length
      if (vectors[0]?.length !== size) {
        // The endpoint changed its vectors' size (another model behind the same name): the next
        // try embeds every tool again, at the new size.
        cache = new Map()
        throw new EmbeddingsFailed(
          'dimensions',
          `the endpoint answered vectors of ${vectors[0]?.length} dimensions after vectors of ${size}`,
        )
      }
      for (const [i, key] of batch.entries()) cache.set(key, vectors[i]!)
    }
    if (closed || catalog !== latest) return
    ready.set(catalog, { tools, vectors: keyed.map(([key]) => cache.get(key)!) })
    // The cache keeps the serving catalog's vectors only: a reload reuses them, nothing else piles up.
    cache = new Map(keys.map((key) => [key, cache.get(key)!]))
    indexed = tools.length
    warning = undefined
  }

  const prepare = (catalog: Catalog) => {
    latest = catalog
    if (retry) clearTimeout(retry)
    retry = undefined
    if (indexing || closed) return
    indexing = true
    void (async () => {
      // Another version may come while one is indexed: the loop indexes the latest until it holds.
      while (!closed && latest && !ready.has(latest)) {
        const target: Catalog = latest
        try {
          await index(target)
        } catch (err) {
          fail('index', err)
          if (target === latest) {
            retry = setTimeout(() => latest && prepare(latest), retryMs)
            retry.unref()
            break
          }
        }
      }
      indexing = false
    })()
  }

  return {
    prepare,
    async rank(search, catalog, query, options) {
      const words = search.search(query, { ...options, limit: Math.max(options.limit, FUSION_DEPTH) })
      const vectors = ready.get(catalog)
      if (!vectors || options.limit <= 0) return words.slice(0, options.limit)
      let asked: Float32Array | undefined
      try {
        ;[asked] = await embedder.embed([query.slice(0, EMBEDDED_QUERY)])
        if (asked?.length !== vectors.vectors[0]?.length)
          throw new EmbeddingsFailed(
            'dimensions',
            `the endpoint answered a query vector of ${asked?.length} dimensions for tools of ${vectors.vectors[0]?.length}`,
          )
      } catch (err) {
        fail('query', err)
        return words.slice(0, options.limit)
      }
      if (ready.get(latest!) === vectors) warning = undefined
      return fuse(words, nearest(vectors, asked!, options.accept), options.limit)
    },
    status() {
      const serving = latest !== undefined && ready.has(latest)
      return {
        ranking: 'lexical+semantic',
        embeddings: {
          model: embedder.model,
          status: warning ? 'failing' : serving ? 'ok' : 'indexing',
          vectors: serving ? indexed : 0,
          ...(warning ? { warning } : {}),
        },
      }
    },
    close() {
      closed = true
      if (retry) clearTimeout(retry)
    },
  }
}

/** The tools nearest the query's vector (cosine: the vectors are unit length), best first. */
function nearest(index: ToolVectors, query: Float32Array, accept?: (tool: Tool) => boolean): Tool[] {
  const scored: { tool: Tool; similarity: number }[] = []
  for (const [i, tool] of index.tools.entries()) {
    if (accept && !accept(tool)) continue
    const vector = index.vectors[i]!
    let similarity = 0
    for (let d = 0; d < vector.length; d++) similarity += vector[d]! * query[d]!
    scored.push({ tool, similarity })
  }
  scored.sort((a, b) => b.similarity - a.similarity)
  return scored.slice(0, FUSION_DEPTH).map(({ tool }) => tool)
}

/**
 * Reciprocal rank fusion of the words' ranking and the meaning's: a tool's score is the sum of
 * 1 / (k + rank) over the lists it is in. Its confidence stays the share of the query's words it
 * matched (0 for a tool only the meaning found).
 */
function fuse(words: readonly ToolMatch[], meaning: readonly Tool[], limit: number): ToolMatch[] {
  const fused = new Map<Tool, { score: number; confidence: number }>()
  for (const [rank, match] of words.slice(0, FUSION_DEPTH).entries())
    fused.set(match.tool, { score: 1 / (FUSION_K + rank + 1), confidence: match.confidence })
  for (const [rank, tool] of meaning.entries()) {
    const found = fused.get(tool)
    const score = 1 / (FUSION_K + rank + 1)
    if (found) found.score += score
    else fused.set(tool, { score, confidence: 0 })
  }
  return [...fused]
    .sort(([, a], [, b]) => b.score - a.score)
    .slice(0, limit)
    .map(([tool, { score, confidence }]) => ({ tool, score, confidence }))
}

/** What a tool's vector is made of. */
export function embeddedText(tool: Tool): string {
  return [tool.title, tool.wireName, tool.description.slice(0, EMBEDDED_DESCRIPTION)]
    .filter((part) => part !== '')
    .join('. ')
}

function keyOf(model: string, text: string): string {
  return hash('sha256', `${model}\u0000${text}`, 'base64')
}
