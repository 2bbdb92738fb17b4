import type { Catalog } from '../catalog/types.js'
import { PairMap } from '../util/pair-map.js'
import { countSample, type TokenSample, textSampler, tokenSample } from './count-tokens.js'
import { jsonBuffer, measureJson, ServedDocument, walkJson } from './served-document.js'

/** A protocol renderer as the snapshot sees it: a view in, the served document out. */
export interface ViewRenderer {
  readonly format: string
  /**
   * `eager`: rendered with the catalog, before it serves (the discovery documents every agent
   * fetches on start). `on-demand`: rendered on its first request, then kept for the version.
   * `measured`: never served whole (MCP pages through the catalog itself); only its size is kept,
   * for the context budget in /catalog.
   */
  readonly served: 'eager' | 'on-demand' | 'measured'
  render(catalog: Catalog, viewName: string): unknown
  /** Formats served per service too (`/openai/:service.json`). */
  renderService?(catalog: Catalog, viewName: string, serviceId: string): unknown
  /** Deferred formats: the part of the document a model holds before any tool search. */
  upfront?(document: unknown): unknown
  /** False for a format no model reads whole (the plain tool list): its tokens are not counted. */
  readonly counted?: boolean
}

export interface ServedSize {
  readonly bytes: number
  readonly tools: number
  /**
   * o200k_base tokens of the compact JSON a model holds before any tool search: the whole
   * document, or for a deferred format only what loads up front (namespaces, the search tool).
   */
  readonly tokens?: number
  /** Present when `tokens` is extrapolated from samples of a document over 1 MB (count-tokens.ts). */
  readonly tokensEstimated?: true
}

/** The documents of one catalog version. */
export interface ViewDocuments extends RenderedViews {
  /** A view in a format, as served; undefined for an unknown view or a format never served whole. */
  get(format: string, view: string): ServedDocument | undefined
}

/** What rendering a catalog's views produces before it serves: sizes, and the eager documents. */
export interface RenderedViews {
  /** Per view and format, the bytes an agent is served and how many tools that is (SPEC §1). */
  readonly sizes: Readonly<Record<string, Readonly<Record<string, ServedSize>>>>
  readonly eager: readonly RenderedDocument[]
  /** With `deferTokens`: what is left to count, per view and format (countTokenSamples). */
  readonly tokenSamples?: readonly TokenJob[]
}

/** One document's tokens, left to count after the catalog swaps (renderEager's `deferTokens`). */
export interface TokenJob {
  readonly view: string
  readonly format: string
  readonly sample: TokenSample
}

/** Token counts per view and format, as `sizes` holds them. */
export type TokenSizes = Record<string, Record<string, Pick<ServedSize, 'tokens' | 'tokensEstimated'>>>

export interface RenderedDocument {
  readonly format: string
  readonly view: string
  readonly document: ServedDocument
}

/**
 * Every view in every format, serialized once per catalog version (eager ones now, on-demand ones
 * on first use) and measured now: a 1,000-tool catalog's formats weigh ~80 MB, and only the
 * discovery documents are worth holding from the start. `rendered`: that work done already (in the
 * build process); only the on-demand documents are left to render here.
 */
export function renderViews(
  catalog: Catalog,
  renderers: readonly ViewRenderer[],
  rendered?: RenderedViews,
): ViewDocuments {
  const kept = new PairMap<ServedDocument>()
  const { sizes, eager } = rendered ?? renderEager(catalog, renderers)
  for (const { format, view, document } of eager) kept.set(format, view, document)
  const onDemand = new Map(
    renderers.filter((renderer) => renderer.served === 'on-demand').map((r) => [r.format, r]),
  )
  return {
    sizes,
    eager,
    get(format, view) {
      const existing = kept.get(format, view)
      if (existing) return existing
      const renderer = onDemand.get(format)
      if (!renderer || !catalog.views[view]) return undefined
      return kept.getOrAdd(format, view, () => new ServedDocument(renderer.render(catalog, view)))
    },
  }
}

/**
 * Every view in every format rendered once: the eager ones kept as documents, all of them measured
 * in bytes and (but the plain tool list) in tokens. This runs in the build process, once per catalog
 * version, so counting never stalls the event loop; sampling above 1 MB bounds it to ~0.1 s a
 * document (the Kubernetes API: ~1 s for its seven counted documents, instead of ~5 s exact).
 * Each format is walked text by text (walkJson), never one string: measured first (measureJson),
 * then sampled as it is walked again, and an eager one written as it is walked, into a buffer of
 * its size. The formats only measured come first and are never bytes at all.
 */
export function renderEager(
  catalog: Catalog,
  renderers: readonly ViewRenderer[],
  { deferTokens = false }: { readonly deferTokens?: boolean } = {},
): RenderedViews {
  const eager: RenderedDocument[] = []
  const measured = new PairMap<ServedSize>()
  const jobs: TokenJob[] = []
  const views = Object.entries(catalog.views)
  const kept = renderers.filter((renderer) => renderer.served === 'eager')
  for (const renderer of [...renderers.filter((renderer) => renderer.served !== 'eager'), ...kept]) {
    for (const [view, { toolIds }] of views) {
      const value = renderer.render(catalog, view)
      const { bytes, chars } = measureJson(value)
      // What a model holds before any search: the whole document (sampled on the walk that
      // writes or measures it), or its upfront part.
      const sampler = renderer.counted !== false && !renderer.upfront ? textSampler(chars) : undefined
      if (renderer.served === 'eager') {
        const body = jsonBuffer(value, bytes, sampler?.read)
        eager.push({
          format: renderer.format,
          view,
          document: new ServedDocument(undefined, undefined, { body }),
        })
      } else if (sampler) walkJson(value, sampler.read)
      if (renderer.counted !== false)
        jobs.push({
          view,
          format: renderer.format,
          sample: sampler ? sampler.sample() : tokenSample(JSON.stringify(renderer.upfront!(value))),
        })
      measured.set(renderer.format, view, { bytes, tools: toolIds.length })
    }
  }
  // Per view, the formats in the renderers' order (as /catalog lists them).
  const sizes = Object.fromEntries(
    views.map(([view]) => [
      view,
      Object.fromEntries(
        renderers.map((renderer) => [renderer.format, measured.get(renderer.format, view)!]),
      ),
    ]),
  )
  if (deferTokens) return { sizes, eager, tokenSamples: jobs }
  return { sizes: withTokens(sizes, countTokenSamples(jobs)), eager }
}

/** Counts what renderEager left to count (the tokenizer loads on first use: ~35 MB, ~0.3 s). */
export function countTokenSamples(jobs: readonly TokenJob[]): TokenSizes {
  const counted: TokenSizes = {}
  for (const { view, format, sample } of jobs) {
    const { tokens, estimated } = countSample(sample)
    counted[view] ??= {}
    counted[view][format] = estimated ? { tokens, tokensEstimated: true } : { tokens }
  }
  return counted
}

/** Sizes with their token counts filled in. */
export function withTokens(
  sizes: RenderedViews['sizes'],
  tokens: TokenSizes,
): Record<string, Record<string, ServedSize>> {
  return Object.fromEntries(
    Object.entries(sizes).map(([view, formats]) => [
      view,
      Object.fromEntries(
        Object.entries(formats).map(([format, size]) => [format, { ...size, ...tokens[view]?.[format] }]),
      ),
    ]),
  )
}
