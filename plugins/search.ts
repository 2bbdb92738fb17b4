import type { FastifyInstance } from 'fastify'
import { DISCOVER_VIEW } from '../src/catalog/build-views.js'
import type { Catalog, Tool, ToolMatch } from '../src/catalog/index.js'
import { errors } from '../src/errors.js'
import { createViewRenderers, type ViewRenderer } from '../src/formats/index.js'
import { renderOptions } from '../src/store/index.js'
import { memoPerOwner } from '../src/util/memo.js'

/** The formats a search answers tool definitions in (the documents' renderers, one tool each). */
export const SEARCH_FORMATS = ['opal', 'openai', 'openai-strict', 'claude', 'mcp'] as const
export type SearchFormat = (typeof SEARCH_FORMATS)[number]

export const SEARCH_DEFAULT_LIMIT = 5
export const SEARCH_MAX_LIMIT = 50
/** A task in words fits in 500 characters; a longer query is refused rather than cut. */
export const SEARCH_MAX_QUERY = 500

/** One ranked tool: its wire name, score and definition in the format asked for. */
export interface SearchHit {
  readonly name: string
  readonly service: string
  readonly score: number
  /** The share of the query's words the tool matched, 0 to 1 (search-index.ts). */
  readonly confidence: number
  readonly definition: unknown
}

/** The view's tools as a set, per catalog (access-narrowed ones included) and view. */
const toolIdsOf = memoPerOwner(
  (catalog: Catalog, view: string) => new Set(catalog.views[view]?.toolIds ?? []),
)

/** What a caller may find in a view: the tools the (access-narrowed) catalog's view lists. */
export function acceptIn(catalog: Catalog, view: string): (tool: Tool) => boolean {
  const ids = toolIdsOf(catalog, view)
  return (tool) => ids.has(tool.id)
}

/** The view that holds only one matched tool, so a renderer renders it and nothing else. */
const MATCHED_VIEW = '\u0000matched'

/** A tool's definition in a format, for the catalog (access-narrowed or not) it is found in. */
export type DefinitionOf = (catalog: Catalog, format: SearchFormat, tool: Tool) => unknown

/**
 * Definitions rendered on a tool's first match and kept per catalog version (access-narrowed
 * catalogs included, dropped with them): the document renderer runs over a catalog whose one view
 * lists just this tool, so the definition is byte for byte the one the whole document holds.
 */
export function createDefinitions(renderers: readonly ViewRenderer[]): DefinitionOf {
  const byFormat = new Map(renderers.map((renderer) => [renderer.format, renderer]))
  const memos = new Map(
    SEARCH_FORMATS.map((format) => [
      format,
      memoPerOwner((catalog: Catalog, tool: Tool) => renderAlone(byFormat.get(format)!, catalog, tool)),
    ]),
  )
  return (catalog, format, tool) => memos.get(format)!(catalog, tool)
}

function renderAlone(renderer: ViewRenderer, catalog: Catalog, tool: Tool): unknown {
  const alone: Catalog = {
    ...catalog,
    tools: [tool],
    views: { [MATCHED_VIEW]: { name: MATCHED_VIEW, toolIds: [tool.id] } },
  }
  const rendered = renderer.render(alone, MATCHED_VIEW)
  const list = (
    renderer.format === 'opal' ? (rendered as { functions: unknown[] }).functions : rendered
  ) as unknown[]
  return list[0]
}

/** The matched tools in rank order, each with its score and definition in the format asked for. */
export function renderMatches(
  catalog: Catalog,
  matches: readonly ToolMatch[],
  format: SearchFormat,
  definitionOf: DefinitionOf,
): SearchHit[] {
  return matches.map(({ tool, score, confidence }) => ({
    name: tool.wireName,
    service: tool.serviceId,
    score: Math.round(score * 1000) / 1000,
    confidence,
    definition: definitionOf(catalog, format, tool),
  }))
}

interface SearchRoute {
  Querystring: { q: string; limit?: number; profile?: string; format?: SearchFormat }
}

/** `q` and `limit`, as every search route takes them (the explorer's, with its own maximum, too). */
export const searchQuerystring = (maxLimit: number) =>
  ({
    type: 'object',
    required: ['q'],
    properties: {
      q: { type: 'string', maxLength: SEARCH_MAX_QUERY },
      limit: { type: 'integer', minimum: 1, maximum: maxLimit },
    },
  }) as const

const base = searchQuerystring(SEARCH_MAX_LIMIT)
const querystring = {
  ...base,
  properties: {
    ...base.properties,
    profile: { type: 'string', minLength: 1, maxLength: 64 },
    format: { type: 'string', enum: [...SEARCH_FORMATS] },
  },
}

/**
 * `GET /tools/search?q=&limit=&profile=&format=` (issue 15): the view's tools ranked for a task in
 * words, each with its score and its definition in the format asked for (OpenAI by default), so an
 * agent framework can back a client-side tool search with it. Discovery-like: anonymous, narrowed
 * to what a client may call when a token comes with it.
 */
export default async function search(fastify: FastifyInstance) {
  const definitionOf = createDefinitions(createViewRenderers(renderOptions(fastify.config)))
  fastify.get<SearchRoute>(
    '/tools/search',
    { schema: { querystring }, config: { access: 'discovery' } },
    async (request) => {
      const { q, limit = SEARCH_DEFAULT_LIMIT, profile = DISCOVER_VIEW, format = 'openai' } = request.query
      if (q.trim() === '') throw new errors.searchQueryEmpty()
      const snapshot = fastify.catalogStore.current()
      if (!snapshot.catalog.views[profile])
        throw new errors.profileUnknown(profile, Object.keys(snapshot.catalog.views).join(', '))
      const visible = fastify.access.catalogFor(request.caller, snapshot.catalog)
      const matches = await fastify.toolRanker.rank(snapshot.search, snapshot.catalog, q, {
        limit,
        accept: acceptIn(visible, profile),
      })
      return {
        query: q,
        profile,
        format,
        catalogVersion: snapshot.catalog.version,
        tools: renderMatches(visible, matches, format, definitionOf),
      }
    },
  )
}
