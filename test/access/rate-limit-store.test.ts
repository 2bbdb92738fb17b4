import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { createRateLimitStore, type RateCount, SHARED_KEY_PREFIX } from '../../src/access/rate-limit-store.js'
import { redisForTest } from '../helpers/redis.js'

const WINDOW_MS = 60_000
const MAX = 5

/** A count the store answered at once (in memory), not a promise. */
const atOnce = (answer: RateCount | Promise<RateCount>): RateCount | undefined =>
  answer instanceof Promise ? undefined : answer

test('in memory, count counts each key on its own, at once', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('10.0.0.1', '10.0.0.2', `${SHARED_KEY_PREFIX}ci`, 'address:client:x'), {
        minLength: 1,
        maxLength: 30,
      }),
      (keys) => {
        const store = createRateLimitStore({
          prefix: 'unused:',
          clientKeys: [`${SHARED_KEY_PREFIX}ci`],
          warn: assert.fail,
        })
        const expected = new Map<string, number>()
        for (const key of keys) {
          const count = atOnce(store.count(key, WINDOW_MS, MAX))
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

test("with Redis, a client's key is counted in Redis and an address at once", async (t) => {
  const { client, prefix } = await redisForTest(t)
  const store = createRateLimitStore({
    redis: client,
    prefix,
    clientKeys: [`${SHARED_KEY_PREFIX}ci`],
    warn: assert.fail,
  })
  const clientKey = `${SHARED_KEY_PREFIX}ci`
  const first = store.count(clientKey, WINDOW_MS, MAX)
  assert.equal(atOnce(first), undefined)
  assert.equal((await first).current, 1)
  assert.equal((await store.count(clientKey, WINDOW_MS, MAX)).current, 2)
  assert.equal(await client.get(`${prefix}${clientKey}`), '2', 'counted in Redis under the prefix')
  assert.equal(atOnce(store.count('10.0.0.1', WINDOW_MS, MAX))?.current, 1)
  assert.equal(atOnce(store.count('10.0.0.1', WINDOW_MS, MAX))?.current, 2)
  assert.equal(await client.exists(`${prefix}10.0.0.1`), 0, 'an address never reaches Redis')
})
