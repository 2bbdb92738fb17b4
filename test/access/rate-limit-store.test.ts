import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { createRateLimitStore, type RateCount, SHARED_KEY_PREFIX } from '../../src/access/rate-limit-store.js'
import { redisForTest } from '../helpers/redis.js'

const WINDOW_MS = 60_000
const MAX = 5

const incr = (store: ReturnType<typeof createRateLimitStore>, key: string) =>
  new Promise<RateCount>((resolve, reject) =>
    store.incr(key, (err, count) => (err || !count ? reject(err) : resolve(count)), WINDOW_MS, MAX),
  )

test('in memory, countNow counts each key on its own, at once, and agrees with incr', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom('10.0.0.1', '10.0.0.2', `${SHARED_KEY_PREFIX}ci`, 'address:client:x'), {
        minLength: 1,
        maxLength: 30,
      }),
      fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      async (keys, viaIncr) => {
        const store = createRateLimitStore({ prefix: 'unused:', warn: assert.fail })
        const expected = new Map<string, number>()
        for (const [i, key] of keys.entries()) {
          const count = viaIncr[i] ? await incr(store, key) : store.countNow(key, WINDOW_MS, MAX)
          const seen = (expected.get(key) ?? 0) + 1
          expected.set(key, seen)
          assert.ok(count, `${key} was not counted in memory`)
          assert.equal(count.current, seen, `${key}'s count`)
          assert.ok(count.ttl > 0 && count.ttl <= WINDOW_MS, `${key}'s window left: ${count.ttl}`)
        }
      },
    ),
  )
})

test("with Redis, countNow leaves a client's key to incr (Redis) and counts an address at once", async (t) => {
  const { client, prefix } = await redisForTest(t)
  const store = createRateLimitStore({ redis: client, prefix, warn: assert.fail })
  const clientKey = `${SHARED_KEY_PREFIX}ci`
  assert.equal(store.countNow(clientKey, WINDOW_MS, MAX), undefined)
  assert.equal((await incr(store, clientKey)).current, 1)
  assert.equal((await incr(store, clientKey)).current, 2)
  assert.equal(await client.get(`${prefix}${clientKey}`), '2', 'counted in Redis under the prefix')
  assert.equal(store.countNow('10.0.0.1', WINDOW_MS, MAX)?.current, 1)
  assert.equal(store.countNow('10.0.0.1', WINDOW_MS, MAX)?.current, 2)
  assert.equal(await client.exists(`${prefix}10.0.0.1`), 0, 'an address never reaches Redis')
})
