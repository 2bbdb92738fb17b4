import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { createRedisSessionStore, REDIS_CLIENT_OPTIONS } from '../../src/sessions/redis.js'
import { SessionStoreUnavailable } from '../../src/sessions/types.js'
import { privateRedis, redisForTest } from '../helpers/redis.js'
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

// The same with the read cache on: it must not change what any of it observes.
sessionStoreBehaviour('redis store with read cache', async (clock, graceSeconds) => {
  const cleanups: (() => Promise<unknown>)[] = []
  const { client, prefix } = await redisForTest({ after: (fn) => cleanups.push(fn) })
  const store = createRedisSessionStore(client, {
    prefix,
    now: () => clock.now,
    graceSeconds,
    readCache: {},
  })
  return {
    ...store,
    async close() {
      await store.close()
      for (const cleanup of cleanups) await cleanup()
    },
  }
})

test('redis store: the GETs of one event-loop turn are each answered with its own session', async (t) => {
  const { client, prefix } = await redisForTest(t)
  const store = createRedisSessionStore(client, { prefix })
  const known = await Promise.all(
    ['discover', 'p1', 'p2'].map((profile) => store.create({ profile, ttlSeconds: 60 })),
  )
  const byCode = new Map(known.map((session) => [session.code, session]))
  const unknown = ['A'.repeat(32), 'B'.repeat(32)]
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...known.map((session) => session.code), ...unknown), {
        minLength: 1,
        maxLength: 40,
      }),
      async (codes) => {
        const answers = codes.map((code) => store.get(code))
        assert.deepEqual(
          await Promise.all(answers),
          codes.map((code) => byCode.get(code)),
        )
      },
    ),
    { numRuns: 50 },
  )
})

test('redis store: Redis gone — a GET rejects with SessionStoreUnavailable at once; back — it answers', async (t) => {
  const redis = await privateRedis(t)
  const client = new Redis(redis.url, { ...REDIS_CLIENT_OPTIONS, lazyConnect: true })
  client.on('error', () => {}) // refused while the server is stopped: what the test is about
  t.after(() => client.disconnect())
  const ready = () => client.status === 'ready'
  await client.connect()
  const store = createRedisSessionStore(client, { prefix: 'toolgate-test:down:' })
  const session = await store.create({ profile: 'discover', ttlSeconds: 60 })
  await redis.stop()
  while (ready()) await new Promise((resolve) => setTimeout(resolve, 10))
  await assert.rejects(store.get(session.code), SessionStoreUnavailable)
  await redis.start()
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 50))
  // A fresh redis-server (no persistence): the session is gone, and the answer says so.
  assert.equal(await store.get(session.code), undefined)
})

test('redis store with read cache: cached holds a session once read, drops it when deleted here or elsewhere, or past its key PX', async (t) => {
  const { client, prefix } = await redisForTest(t)
  const clock = { now: new Date() }
  const store = createRedisSessionStore(client, {
    prefix,
    now: () => clock.now,
    graceSeconds: 60,
    readCache: {},
  })
  t.after(() => store.close())
  const session = await store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(store.cached?.(session.code), undefined, 'not read yet: only get can tell')
  // Caching turns on once tracking is confirmed: read until the session is held (bounded).
  for (let i = 0; i < 100 && store.cached?.(session.code) === undefined; i++) {
    assert.deepEqual(await store.get(session.code), session)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.deepEqual(store.cached?.(session.code), session, 'held after a tracked read')
  assert.equal(store.cached?.('A'.repeat(32)), undefined, 'a miss is never held')
  // Deleted by another replica: gone here once Redis's invalidation arrives.
  await client.del(`${prefix}session:${session.code}`)
  for (let i = 0; i < 100 && store.cached?.(session.code) !== undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.equal(store.cached?.(session.code), undefined, 'invalidated by Redis')
  assert.equal(await store.get(session.code), undefined)
  // Deleted here: dropped at once.
  const mine = await store.create({ profile: 'discover', ttlSeconds: 60 })
  for (let i = 0; i < 100 && store.cached?.(mine.code) === undefined; i++) await store.get(mine.code)
  assert.deepEqual(store.cached?.(mine.code), mine)
  assert.equal(await store.delete(mine.code), true)
  assert.equal(store.cached?.(mine.code), undefined)
  // Past the key's PX (expiry + grace) on the store's clock: not held, whatever Redis says yet.
  const old = await store.create({ profile: 'discover', ttlSeconds: 1 })
  for (let i = 0; i < 100 && store.cached?.(old.code) === undefined; i++) await store.get(old.code)
  assert.deepEqual(store.cached?.(old.code), old)
  clock.now = new Date(clock.now.getTime() + 61_000)
  assert.equal(store.cached?.(old.code), undefined)
})
