import fp from 'fastify-plugin'
import { createEmbeddingsClient } from '../src/search/embeddings.js'
import { createToolRanker, LEXICAL_RANKER, type ToolRanker } from '../src/search/tool-ranker.js'
import { traceRanker } from '../src/tracing/search-span.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Ranks tools for every search route: words, fused with meaning when search.embeddings is set. */
    toolRanker: ToolRanker
  }
}

/**
 * Tool search's ranking (issue 43). Without search.embeddings, words alone (the default install,
 * offline). With it, each catalog that serves is embedded in the background and fused with the
 * words; an endpoint that fails is counted (toolgate_search_embeddings_failures_total) and shown
 * in /ready, and the searches meanwhile rank by words.
 */
export default fp(
  async function toolRanker(fastify) {
    const options = fastify.config.embeddings
    const traced = (ranker: ToolRanker) => (fastify.tracingEnabled ? traceRanker(ranker) : ranker)
    if (!options) {
      fastify.decorate('toolRanker', traced(LEXICAL_RANKER))
      return
    }
    const ranker = createToolRanker(createEmbeddingsClient(options), options.batchSize, {
      onFailure: (stage, reason) => {
        fastify.gatewayMetrics.embeddingsFailed(stage, reason)
        // A failing query is counted, not logged: an outage would log every search.
        if (stage === 'index') fastify.log.warn(`tool search: ${ranker.status().embeddings?.warning}`)
      },
    })
    ranker.prepare(fastify.catalogStore.current().catalog)
    fastify.catalogStore.onReload((record, snapshot) => {
      if (record.swapped) ranker.prepare(snapshot.catalog)
    })
    fastify.addHook('onClose', async () => ranker.close())
    fastify.decorate('toolRanker', traced(ranker))
  },
  { name: 'tool-ranker', dependencies: ['config', 'catalog-store', 'metrics'] },
)
