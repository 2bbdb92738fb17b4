import type { FastifyInstance } from 'fastify'
import { type Catalog, DISCOVER_VIEW, type Tool, type ToolMatch } from '../src/catalog/index.js'
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

/** The view that holds only the matched tools, so each renderer renders them and nothing else. */
const MATCHED_VIEW = '\u0000matched'

/**
 * Definitions of the matched tools in one format, in rank order: the document renderers run over
 * a catalog whose one view lists just these tools, so a definition found here is byte for byte
 * the one the whole document holds.
 */
export function renderMatches(
  catalog: Catalog,
  matches: readonly ToolMatch[],
  renderer: ViewRenderer,
): SearchHit[] {
  if (matches.length === 0) return []
  const matched: Catalog = {
    ...catalog,
    tools: matches.map((match) => match.tool),
    views: { [MATCHED_VIEW]: { name: MATCHED_VIEW, toolIds: matches.map((match) => match.tool.id) } },
  }
  const rendered = renderer.render(matched, MATCHED_VIEW)
  const definitions = (
    renderer.format === 'opal' ? (rendered as { functions: unknown[] }).functions : rendered
  ) as unknown[]
  return matches.map((match, i) => ({
    name: match.tool.wireName,
    service: match.tool.serviceId,
    score: Math.round(match.score * 1000) / 1000,
    definition: definitions[i],
  }))
}

interface SearchRoute {
  Querystring: { q: string; limit?: number; profile?: string; format?: SearchFormat }
}

const querystring = {
  type: 'object',
  required: ['q'],
  properties: {
    q: { type: 'string', maxLength: SEARCH_MAX_QUERY },
    limit: { type: 'integer', minimum: 1, maximum: SEARCH_MAX_LIMIT },
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
  const renderers = new Map(
    createViewRenderers(renderOptions(fastify.config)).map((renderer) => [renderer.format, renderer]),
  )
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
      const matches = snapshot.search.search(q, { limit, accept: acceptIn(visible, profile) })
      return {
        query: q,
        profile,
        format,
        catalogVersion: snapshot.catalog.version,
        tools: renderMatches(visible, matches, renderers.get(format)!),
      }
    },
  )
}
