import { createRedisSessionStore } from '../../src/sessions/redis.js'
import { redisForTest } from '../helpers/redis.js'
import { sessionStoreBehaviour } from './behaviour.js'

// A real connection to the local redis-server (CI starts one), one key prefix per test.
sessionStoreBehaviour('redis store', async (clock, graceSeconds) => {
  const cleanups: (() => Promise<unknown>)[] = []
  const { client, prefix } = await redisForTest({ after: (fn) => cleanups.push(fn) })
  const store = createRedisSessionStore(client, { prefix, now: () => clock.now, graceSeconds })
  return {
    ...store,
    async close() {
      for (const cleanup of cleanups) await cleanup()
    },
  }
})
