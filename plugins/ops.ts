import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { describeAccess } from '../src/access/describe-access.js'
import type { Catalog } from '../src/catalog/index.js'
import type { ReloadRecord } from '../src/store/index.js'
import { API_VERSION, PACKAGE_VERSION } from '../src/version.js'
import { setSimpleCorsHeaders } from './cors.js'
import { sendDocument } from './send-document.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Shutdown state (SPEC §5): set by server.ts on SIGTERM, before the drain delay starts. */
    lifecycle: { draining: boolean }
  }
}

/**
 * Operations routes (SPEC §5) and the headers every response carries. Liveness never looks at
 * anything but the process; readiness needs a loaded catalog.
 */
async function ops(fastify: FastifyInstance) {
  fastify.decorate('lifecycle', { draining: false })
  // The one root onRequest hook: the headers every response carries, CORS's pair first (a request
  // refused by a route's access hook, which runs after it, carries them all). Callback style, not
  // async: no promise per request (issue 20's profile).
  fastify.addHook('onRequest', (request, reply, done) => {
    setSimpleCorsHeaders(reply)
    // Names in lower case: Fastify lower-cases each name it is given.
    reply.header('api-version', API_VERSION)
    reply.header('catalog-version', fastify.catalogStore.current().catalog.version)
    reply.header('x-request-id', request.id)
    done()
  })
  // While draining, each response closes its connection, those of requests that started before
  // the signal included: a load balancer's idle keep-alive connections to this replica go away
  // before the listener closes, and none is left for the drain to wait on.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (fastify.lifecycle.draining) reply.header('Connection', 'close')
    done(null, payload)
  })

  fastify.get('/health', async () => ({ status: 'ok' }))

  // Redis down is reported, not failed: discovery and tool calls work without sessions, and failing
  // readiness on every replica at once would turn a session outage into a total one (SPEC §5).
  fastify.get('/ready', async (_request, reply) => {
    const { catalog, loadedAt } = fastify.catalogStore.current()
    if (fastify.lifecycle.draining)
      return reply.code(503).send({ status: 'draining', catalogVersion: catalog.version })
    const sessions = {
      store: fastify.sessionStoreKind,
      status: (await fastify.sessions.health()) === 'ok' ? 'ok' : 'degraded',
    }
    return {
      status: 'ready',
      catalogVersion: catalog.version,
      loadedAt,
      tools: catalog.tools.length,
      sessions,
      access: describeAccess(fastify.config.access),
      // An embeddings endpoint that fails does not fail readiness: searches rank by words meanwhile.
      search: fastify.toolRanker.status(),
      // A broken spec file fails alone (SPEC §1): readiness stays, and says which files do not serve.
      specs: specsReadiness(catalog, fastify.catalogStore.history().at(-1)),
      // An optional remote source that failed is reported here, not failed on (seed 004, SPEC §1).
      remoteSources: catalog.sources
        .filter((source) => source.kind === 'remote')
        .map((source) => ({
          id: source.sourceId.slice('remote:'.length),
          status: source.status,
          tools: source.tools,
        })),
      // A broken spec or a failed reload does not fail readiness (the last good catalog serves), but
      // an operator reading /ready sees it (issue 14: a build stopped by a limit, a file refused).
      ...lastReload(fastify),
      brokenSources: catalog.sources
        .filter((source) => source.status !== 'ok')
        .map((source) => ({
          source: source.sourceId,
          status: source.status,
          problem: catalog.problems.find((p) => p.file === source.sourceId && p.severity === 'error')
            ?.message,
        })),
    }
  })

  fastify.get('/version', async () => {
    const { catalog, loadedAt } = fastify.catalogStore.current()
    return {
      name: 'toolgate',
      version: PACKAGE_VERSION,
      apiVersions: [API_VERSION],
      catalogVersion: catalog.version,
      loadedAt,
    }
  })

  // Each reload's diff, outcome and timing, newest last (SPEC §5: "each reload logs and exposes its diff").
  fastify.get('/catalog/reloads', { config: { access: 'operator' } }, async () => ({
    reloads: fastify.catalogStore.history(),
  }))

  fastify.get('/catalog', { config: { access: 'operator' } }, async (request, reply) => {
    const snapshot = fastify.catalogStore.current()
    // Token counts arrive from the build process just after a new version swaps in.
    await snapshot.tokensSettled
    return sendDocument(request, reply, await snapshot.catalogDocument())
  })
}

function lastReload(fastify: FastifyInstance) {
  const record = fastify.catalogStore.history().at(-1)
  if (!record) return {}
  const { trigger, startedAt, durationMs, outcome, swapped, error } = record
  return { lastReload: { trigger, startedAt, durationMs, outcome, swapped, ...(error ? { error } : {}) } }
}

export default fp(ops, { name: 'ops', dependencies: ['cors', 'catalog-store', 'sessions', 'tool-ranker'] })

/** Spec files that failed or serve their last good version, and how the latest reload went. */
function specsReadiness(catalog: Catalog, lastReload: ReloadRecord | undefined) {
  const files = catalog.sources.filter((source) => source.kind !== 'remote')
  return {
    failed: files.filter((source) => source.status === 'failed').map((source) => source.sourceId),
    stale: files.filter((source) => source.status === 'stale').map((source) => source.sourceId),
    ...(lastReload
      ? {
          lastReload: {
            startedAt: lastReload.startedAt,
            durationMs: lastReload.durationMs,
            outcome: lastReload.outcome,
          },
        }
      : {}),
  }
}
