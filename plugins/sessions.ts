import fp from 'fastify-plugin'
import { createMemorySessionStore } from '../src/sessions/memory.js'
import { createRedisSessionStore, REDIS_CLIENT_OPTIONS } from '../src/sessions/redis.js'
import type { SessionStore } from '../src/sessions/types.js'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionStore
    sessionStoreKind: 'memory' | 'redis'
  }
}

/**
 * The session store: Redis through @fastify/redis when REDIS_URL is set (boot waits for it: a
 * configured dependency that is down fails the start), else the embedded memory store.
 */
export default fp(
  async function sessions(fastify) {
    const { redisUrl, redisKeyPrefix } = fastify.config
    if (!redisUrl) {
      const store = createMemorySessionStore()
      fastify.decorate('sessions', store)
      fastify.decorate('sessionStoreKind', 'memory' as const)
      fastify.addHook('onClose', () => store.close())
      return
    }
    // Imported only when configured: ioredis and its command table are ≈ 6.5 MB of heap a gateway
    // on the embedded store never uses (issue 20, sixteenth pass).
    const [{ Redis }, { default: fastifyRedis }] = await Promise.all([
      import('ioredis'),
      import('@fastify/redis'),
    ])
    const client = new Redis(redisUrl, REDIS_CLIENT_OPTIONS)
    // Connection errors while Redis is away are expected: requests answer 503 until it returns.
    client.on('error', (err: Error) => fastify.log.warn({ err: err.message }, 'redis connection error'))
    // Closing is ours: QUIT cannot be sent while Redis is away (no offline queue), and a client
    // left reconnecting would keep a shutting-down process alive.
    fastify.addHook('onClose', async () => {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect())
      else client.disconnect()
    })
    await fastify.register(fastifyRedis, { client, closeClient: false })
    // Found sessions are cached in this process, kept consistent by Redis's invalidations
    // (src/sessions/tracked-cache.ts) through two more connections, closed with the store.
    const store = createRedisSessionStore(fastify.redis, {
      prefix: redisKeyPrefix,
      readCache: { onError: (err) => fastify.log.warn({ err: err.message }, 'redis connection error') },
    })
    fastify.addHook('onClose', () => store.close())
    fastify.decorate('sessions', store)
    fastify.decorate('sessionStoreKind', 'redis' as const)
  },
  { name: 'sessions', dependencies: ['config'] },
)
