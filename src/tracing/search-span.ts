import type { ToolRanker } from '../search/tool-ranker.js'
import { tracer } from './tracer.js'

/**
 * The ranker with a span per search: the query's length, the number of results, the top score and
 * how it ranked — never the query's words (a user's task in words can hold anything).
 */
export function traceRanker(ranker: ToolRanker): ToolRanker {
  return {
    ...ranker,
    rank: (search, catalog, query, options) =>
      tracer.startActiveSpan('tool_search', async (span) => {
        try {
          span.setAttribute('toolgate.search.query.length', query.length)
          span.setAttribute('toolgate.search.limit', options.limit)
          span.setAttribute('toolgate.search.ranking', ranker.status().ranking)
          const matches = await ranker.rank(search, catalog, query, options)
          span.setAttribute('toolgate.search.results', matches.length)
          if (matches[0]) span.setAttribute('toolgate.search.top_score', matches[0].score)
          return matches
        } finally {
          span.end()
        }
      }),
    prepare: (catalog) => ranker.prepare(catalog),
    status: () => ranker.status(),
    close: () => ranker.close(),
  }
}
