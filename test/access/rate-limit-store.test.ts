import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { createRateLimitStore, type RateCount, SHARED_KEY_PREFIX } from '../../src/access/rate-limit-store.js'
import { REDIS_CLIENT_OPTIONS } from '../../src/sessions/redis.js'
import { privateRedis, redisForTest } from '../helpers/redis.js'

const WINDOW_MS = 60_000
const CLIENT = `${SHARED_KEY_PREFIX}ci`

/** A count the store answered at once (in memory), not a promise. */
const atOnce = (answer: RateCount | Promise<RateCount>): RateCount | undefined =>
  answer instanceof Promise ? undefined : answer

test('in memory, count counts each key on its own, at once', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('10.0.0.1', '10.0.0.2', CLIENT, 'address:client:x'), {
        minLength: 1,
        maxLength: 30,
      }),
      (keys) => {
        const store = createRateLimitStore({ prefix: 'unused:', clientKeys: [CLIENT], warn: assert.fail })
        const expected = new Map<string, number>()
        for (const key of keys) {
          const count = atOnce(store.count(key, WINDOW_MS))
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

test('in memory, a window that has run out starts again at 1', async () => {
  const store = createRateLimitStore({ prefix: 'unused:', clientKeys: [CLIENT], warn: assert.fail })
  for (const key of ['10.0.0.1', CLIENT]) {
    assert.equal(atOnce(store.count(key, 40))?.current, 1)
    assert.equal(atOnce(store.count(key, 40))?.current, 2)
  }
  await sleep(60)
  for (const key of ['10.0.0.1', CLIENT]) {
    const count = atOnce(store.count(key, 40))
    assert.equal(count?.current, 1, `${key} starts a new window`)
    assert.equal(count?.ttl, 40)
  }
})

test('in memory, the least recently seen address is forgotten beyond 10,000; clients never are', () => {
  const store = createRateLimitStore({ prefix: 'unused:', clientKeys: [CLIENT], warn: assert.fail })
  store.count('old', WINDOW_MS)
  store.count('seen again', WINDOW_MS)
  store.count(CLIENT, WINDOW_MS)
  for (let i = 0; i < 9_998; i++) store.count(`10.1.${i}`, WINDOW_MS)
  store.count('seen again', WINDOW_MS) // now the most recently seen: 10,000 addresses held
  store.count('10.2.0.0', WINDOW_MS) // the 10,001st: 'old' goes
  // Counted anew, 'old' forgets the next least recently seen: 10.1.0, not 'seen again'.
  assert.equal(atOnce(store.count('old', WINDOW_MS))?.current, 1, 'forgotten, counted anew')
  assert.equal(atOnce(store.count('seen again', WINDOW_MS))?.current, 3, 'kept: seen recently')
  assert.equal(atOnce(store.count('10.1.0', WINDOW_MS))?.current, 1, 'forgotten')
  assert.equal(atOnce(store.count(CLIENT, WINDOW_MS))?.current, 2, "the client's count survives")
  assert.throws(() => store.count(`${SHARED_KEY_PREFIX}unknown`, WINDOW_MS), /not a configured client's key/)
})

test("with Redis, a client's key is counted in Redis and an address at once", async (t) => {
  const { client, prefix } = await redisForTest(t)
  const store = createRateLimitStore({ redis: client, prefix, clientKeys: [CLIENT], warn: assert.fail })
  const first = store.count(CLIENT, WINDOW_MS)
  assert.equal(atOnce(first), undefined)
  const counted = await first
  assert.equal(counted.current, 1)
  assert.ok(counted.ttl > 0 && counted.ttl <= WINDOW_MS, `window left: ${counted.ttl}`)
  assert.equal((await store.count(CLIENT, WINDOW_MS)).current, 2)
  assert.equal(await client.get(`${prefix}${CLIENT}`), '2', 'counted in Redis under the prefix')
  const pttl = await client.pttl(`${prefix}${CLIENT}`)
  assert.ok(pttl > 0 && pttl <= WINDOW_MS, `the key expires with its window: ${pttl}`)
  assert.equal(atOnce(store.count('10.0.0.1', WINDOW_MS))?.current, 1)
  assert.equal(atOnce(store.count('10.0.0.1', WINDOW_MS))?.current, 2)
  assert.equal(await client.exists(`${prefix}10.0.0.1`), 0, 'an address never reaches Redis')
})

test("with Redis, replicas share a client's window, which starts again once it has run out", async (t) => {
  const { client, prefix } = await redisForTest(t)
  const replicas = [0, 1].map(() =>
    createRateLimitStore({ redis: client, prefix, clientKeys: [CLIENT], warn: assert.fail }),
  )
  const counts: number[] = []
  for (let i = 0; i < 6; i++) counts.push((await replicas[i % 2]!.count(CLIENT, 300)).current)
  assert.deepEqual(counts, [1, 2, 3, 4, 5, 6])
  await sleep(350)
  assert.equal((await replicas[1]!.count(CLIENT, 300)).current, 1, 'a new window')
  // A key left without an expiry (a lost write) gets one again on its next count.
  await client.persist(`${prefix}${CLIENT}`)
  const count = await replicas[0]!.count(CLIENT, 300)
  assert.equal(count.current, 2)
  assert.ok(count.ttl > 0 && count.ttl <= 300)
  assert.ok((await client.pttl(`${prefix}${CLIENT}`)) > 0)
})

test("when Redis fails, a client is counted in this replica's memory, with one warning", async (t) => {
  const server = await privateRedis(t)
  const redis = new Redis(server.url, { ...REDIS_CLIENT_OPTIONS, lazyConnect: true })
  redis.on('error', () => {}) // the outage below: the store reports it
  await redis.connect()
  t.after(() => redis.disconnect())
  const warnings: string[] = []
  const store = createRateLimitStore({
    redis,
    prefix: 'rl:',
    clientKeys: [CLIENT],
    warn: (message) => warnings.push(message),
  })
  assert.equal((await store.count(CLIENT, WINDOW_MS)).current, 1)
  await server.stop()
  const during = []
  for (let i = 0; i < 3; i++) during.push((await store.count(CLIENT, WINDOW_MS)).current)
  assert.deepEqual(during, [1, 2, 3], 'counted in memory: the limits hold, nothing fails')
  assert.equal(warnings.length, 1, warnings.join('\n'))
  assert.match(warnings[0]!, /^rate limits: Redis failed \(.+\); counting clients in this replica's memory$/)
})

test('the count script is sent by its hash, and again in full to a Redis that lost it', async (t) => {
  const server = await privateRedis(t)
  const redis = new Redis(server.url, { ...REDIS_CLIENT_OPTIONS, lazyConnect: true })
  await redis.connect()
  try {
    const store = createRateLimitStore({ redis, prefix: 'rl:', clientKeys: [CLIENT], warn: assert.fail })
    assert.equal((await store.count(CLIENT, WINDOW_MS)).current, 1)
    assert.equal(await redis.call('SCRIPT', 'FLUSH'), 'OK')
    // A second store on the same client: the command is defined once, and a lost script is sent again.
    const again = createRateLimitStore({ redis, prefix: 'rl:', clientKeys: [CLIENT], warn: assert.fail })
    assert.equal((await again.count(CLIENT, WINDOW_MS)).current, 2)
    for (let current = 3; current <= 7; current++)
      assert.equal((await store.count(CLIENT, WINDOW_MS)).current, current)
    const commands = String(await redis.call('INFO', 'commandstats'))
    // ioredis sends the script in full on a connection's first call and after NOSCRIPT, else its hash.
    assert.match(
      commands,
      /^cmdstat_eval:calls=2,/m,
      'the script in full: the first count and once after the flush',
    )
    assert.match(commands, /^cmdstat_evalsha:calls=6,.*failed_calls=1$/m, 'every other count by its hash')
    assert.match(commands, /^cmdstat_incr:calls=7,/m)
  } finally {
    redis.disconnect() // before the private server stops
  }
})
