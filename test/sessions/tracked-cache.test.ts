// The session read cache kept consistent by Redis (CLIENT TRACKING): the pure cache and its
// pending marks, then two "replicas" on the real Redis, MONITOR to see which GETs leave.
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { connect } from 'node:net'
import { test } from 'node:test'
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { createRedisSessionStore, REDIS_CLIENT_OPTIONS } from '../../src/sessions/redis.js'
import { ReadCache, trackReads } from '../../src/sessions/tracked-cache.js'
import { type Session, type SessionStore, SessionStoreUnavailable } from '../../src/sessions/types.js'
import { HANG_BOUND_MS } from '../helpers/hang.js'
import { privateRedis, REDIS_URL, redisForTest } from '../helpers/redis.js'

type After = { after(fn: () => Promise<unknown>): void }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `check` every 10 ms until `done`; the last answer is what the test asserts. A hang check,
 * not a speed bound: it gives up only after HANG_BOUND_MS (an invalidation that never comes).
 */
async function eventually<T>(check: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const end = Date.now() + HANG_BOUND_MS
  let value = await check()
  while (!done(value) && Date.now() < end) {
    await sleep(10)
    value = await check()
  }
  return value
}

/**
 * Counts the GETs Redis executes on keys under `prefix`, read from MONITOR on a plain socket
 * (ioredis' monitor() can take the first lines for command replies when they come with its OK).
 */
async function monitorGets(t: After, url: string, prefix: string) {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port || 6379), hostname)
  socket.on('error', () => {}) // the server may be stopped by the test
  const probe = new Redis(url, { retryStrategy: () => null })
  probe.on('error', () => {})
  t.after(async () => {
    socket.destroy()
    probe.disconnect()
  })
  let gets = 0
  let sentinels = 0
  let rest = ''
  socket.setEncoding('latin1')
  socket.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\r\n')
    rest = lines.pop() ?? ''
    for (const line of lines) {
      const command = /^\+\S+ \[\d+ \S+\] "(\w+)" "([^"]*)"/.exec(line)
      if (command?.[1]?.toLowerCase() === 'get' && command[2]?.startsWith(prefix)) gets++
      if (command?.[1]?.toLowerCase() === 'echo' && command[2] === prefix) sentinels++
    }
  })
  socket.write('MONITOR\r\n')
  await once(socket, 'data')
  return {
    /** The GETs so far: every command executed before our ECHO has been seen once it is. */
    async count() {
      const seen = sentinels
      await probe.echo(prefix)
      await eventually(
        () => sentinels,
        (n) => n > seen,
      )
      return gets
    },
  }
}

async function replica(t: After, url: string, prefix: string, name: string) {
  const client = new Redis(url, { ...REDIS_CLIENT_OPTIONS, connectionName: name })
  client.on('error', () => {}) // refused while a test stops the server
  await once(client, 'ready')
  const store = createRedisSessionStore(client, { prefix, readCache: {} })
  t.after(async () => {
    await store.close()
    client.disconnect()
  })
  return { client, store }
}

/** Gets until a get sends no GET (the session is served from the cache). */
async function cached(store: SessionStore, code: string, gets: { count(): Promise<number> }) {
  return eventually(
    async () => {
      await store.get(code)
      const before = await gets.count()
      await store.get(code)
      return (await gets.count()) === before
    },
    (yes) => yes,
  )
}

const session = (code: string): Session => ({
  code,
  profile: 'p',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T00:01:00.000Z',
})

test('read cache: a reply whose key was invalidated (or the cache switched off) while in flight is returned but not kept', () => {
  const cache = new ReadCache<Session>()
  cache.enable()
  const value = session('A')
  const a = cache.begin('k')
  const b = cache.begin('k')
  cache.invalidate(['k'])
  const c = cache.begin('k') // left after the invalidation: shares the stale mark, conservatively
  cache.settle('k', a, value, 10)
  cache.settle('k', b, value, 10)
  cache.settle('k', c, value, 10)
  assert.equal(cache.lookup('k', 0), undefined)
  const d = cache.begin('k') // nothing pending any more: a fresh mark
  cache.settle('k', d, value, 10)
  assert.equal(cache.lookup('k', 0), value)
  assert.equal(cache.lookup('k', 10), undefined, 'gone at its deadline')
  const e = cache.begin('k')
  cache.invalidate(null) // a flush
  cache.settle('k', e, value, 10)
  assert.equal(cache.size, 0)
  const f = cache.begin('k')
  cache.disable()
  cache.enable()
  cache.settle('k', f, value, 10)
  assert.equal(cache.size, 0, 'switched off while in flight')
  cache.disable()
  assert.equal(cache.begin('k'), undefined, 'off: nothing is cached')
})

test('read cache: against a model, nothing invalidated in flight is kept, and it never holds more than its bound', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('begin' as const), key: fc.constantFrom('a', 'b', 'c', 'd') }),
    fc.record({ kind: fc.constant('settle' as const), slot: fc.nat(20), found: fc.boolean() }),
    fc.record({ kind: fc.constant('invalidate' as const), key: fc.constantFrom('a', 'b', 'c', 'd') }),
    fc.record({ kind: fc.constant('flush' as const) }),
    fc.record({ kind: fc.constant('toggle' as const) }),
  )
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const cache = new ReadCache<Session>(2)
      cache.enable()
      // Model: each read in flight, with whether anything dropped its key since it left.
      const inFlight: { key: string; read: ReturnType<typeof cache.begin>; dirty: boolean }[] = []
      const kept = new Map<string, Session>()
      for (const step of ops) {
        if (step.kind === 'begin') {
          // A read that leaves while another of its key is on its way shares that one's mark: left
          // after an invalidation the other saw, it is not kept either (conservatively).
          const read = cache.begin(step.key)
          const shared = inFlight.some((flight) => read !== undefined && flight.read === read && flight.dirty)
          inFlight.push({ key: step.key, read, dirty: !cache.enabled || shared })
        } else if (step.kind === 'settle' && inFlight.length > 0) {
          const flight = inFlight.splice(step.slot % inFlight.length, 1)[0] as (typeof inFlight)[number]
          const value = step.found ? session(flight.key) : undefined
          cache.settle(flight.key, flight.read, value, 100)
          const got = cache.lookup(flight.key, 0)
          if (flight.dirty || !value) assert.ok(got === undefined || got === kept.get(flight.key))
          else {
            assert.equal(got, value)
            kept.set(flight.key, value)
          }
        } else if (step.kind === 'invalidate') {
          cache.invalidate([step.key])
          kept.delete(step.key)
          for (const flight of inFlight) if (flight.key === step.key) flight.dirty = true
        } else if (step.kind === 'flush' || step.kind === 'toggle') {
          if (step.kind === 'flush') cache.invalidate(null)
          else if (cache.enabled) cache.disable()
          else cache.enable()
          kept.clear()
          for (const flight of inFlight) flight.dirty = true
        }
        assert.ok(cache.size <= 2)
        // Whatever it holds was read with nothing dropping it since.
        for (const key of ['a', 'b', 'c', 'd']) {
          const got = cache.lookup(key, 0)
          if (got !== undefined) assert.equal(got, kept.get(key))
        }
      }
    }),
    { numRuns: 300 },
  )
})

test('read cache: bounded, oldest dropped first', () => {
  const cache = new ReadCache<Session>(3)
  cache.enable()
  for (const key of ['a', 'b', 'c', 'd']) cache.settle(key, cache.begin(key), session(key), 10)
  assert.equal(cache.size, 3)
  assert.equal(cache.lookup('a', 0), undefined)
  assert.equal(cache.lookup('d', 0)?.code, 'd')
})

test('read cache: two replicas — a repeated get sends no GET; a delete, an overwrite or an expiry elsewhere is seen within 1 s', async (t) => {
  const { client: cleaner, prefix } = await redisForTest(t) // deletes every key of the prefix after
  const a = await replica(t, REDIS_URL, prefix, `tg-test-a-${randomUUID()}`)
  const b = await replica(t, REDIS_URL, prefix, `tg-test-b-${randomUUID()}`)
  const gets = await monitorGets(t, REDIS_URL, prefix)

  const first = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(b.store, first.code, gets), true, 'B serves it from its cache')
  const before = await gets.count()
  for (let i = 0; i < 20; i++) assert.deepEqual(await b.store.get(first.code), first)
  assert.equal(await gets.count(), before, 'twenty cached gets, no GET')
  assert.equal(await a.store.delete(first.code), true)
  assert.equal(
    await eventually(
      () => b.store.get(first.code),
      (s) => s === undefined,
    ),
    undefined,
  )

  // Overwritten by Redis's own hand (no store does that; an operator could): B sees the new value.
  const second = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(b.store, second.code, gets), true)
  const changed = { ...second, profile: 'changed' }
  await cleaner.set(`${prefix}session:${second.code}`, JSON.stringify(changed))
  assert.deepEqual(
    await eventually(
      () => b.store.get(second.code),
      (s) => s?.profile === 'changed',
    ),
    changed,
  )

  // Expired by Redis (a short PX): gone from B's cache too.
  const third = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(b.store, third.code, gets), true)
  await cleaner.pexpire(`${prefix}session:${third.code}`, 50)
  assert.equal(
    await eventually(
      () => b.store.get(third.code),
      (s) => s === undefined,
    ),
    undefined,
  )

  // Deleted on B itself: gone at once, before any invalidation.
  const fourth = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(b.store, fourth.code, gets), true)
  assert.equal(await b.store.delete(fourth.code), true)
  assert.equal(await b.store.get(fourth.code), undefined)
})

test('read cache: FLUSHDB (of a DB of its own, 13) empties every replica cache', async (t) => {
  const url = `${REDIS_URL.replace(/\/\d*$/, '')}/13`
  const prefix = `toolgate-test:${randomUUID()}:`
  const a = await replica(t, url, prefix, `tg-test-a-${randomUUID()}`)
  const b = await replica(t, url, prefix, `tg-test-b-${randomUUID()}`)
  const gets = await monitorGets(t, url, prefix)
  const made = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(b.store, made.code, gets), true)
  await a.client.flushdb()
  assert.equal(
    await eventually(
      () => b.store.get(made.code),
      (s) => s === undefined,
    ),
    undefined,
  )
})

test('read cache: a killed reader empties the cache and the next get asks Redis; caching resumes after reconnect', async (t) => {
  const name = `tg-test-kill-${randomUUID()}`
  const { client: admin, prefix } = await redisForTest(t)
  const a = await replica(t, REDIS_URL, prefix, name)
  const gets = await monitorGets(t, REDIS_URL, prefix)
  const made = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(a.store, made.code, gets), true)
  for (const which of ['session-reads', 'session-invalidations']) {
    const clients = String(
      await admin.call('CLIENT', 'LIST', 'TYPE', which === 'session-reads' ? 'normal' : 'pubsub'),
    )
    const id = /id=(\d+) .*name=(\S+)/
      .exec(clients.split('\n').find((line) => line.includes(` name=${name}:${which} `)) ?? '')
      ?.at(1)
    assert.ok(id, `${which} connection listed`)
    await admin.client('KILL', 'ID', id)
    // Killed: whatever it answers now comes from Redis (one GET each), not the dropped cache.
    const before = await gets.count()
    await eventually(
      () => a.store.get(made.code).catch(() => undefined),
      (s) => s !== undefined,
    )
    assert.ok((await gets.count()) > before, `after killing ${which}, the get went to Redis`)
    assert.equal(await cached(a.store, made.code, gets), true, `caching resumed after ${which} reconnected`)
  }
})

test('read cache: Redis unreachable — a cached session fails with SessionStoreUnavailable, never a cached answer; back — caching resumes', async (t) => {
  const redis = await privateRedis(t)
  const prefix = 'toolgate-test:down:'
  const a = await replica(t, redis.url, prefix, 'tg-test-down')
  const gets = await monitorGets(t, redis.url, prefix)
  const made = await a.store.create({ profile: 'discover', ttlSeconds: 60 })
  assert.equal(await cached(a.store, made.code, gets), true)
  await redis.stop()
  await eventually(
    () => a.client.status,
    (status) => status !== 'ready',
  )
  await assert.rejects(a.store.get(made.code), SessionStoreUnavailable)
  await redis.start()
  const again = await eventually(
    () => a.store.create({ profile: 'discover', ttlSeconds: 60 }).catch(() => undefined),
    (s) => s !== undefined,
  )
  assert.ok(again)
  const back = await monitorGets(t, redis.url, prefix)
  assert.equal(await cached(a.store, again.code, back), true)
})

test('read cache: an invalidation that overtakes the reply of a GET sent before it — the reply is answered, not kept', async (t) => {
  const { client, prefix } = await redisForTest(t)
  const cache = new ReadCache<string>()
  const tracked = trackReads(client, cache as ReadCache<unknown>, () => {})
  t.after(() => tracked.close())
  const gets = await monitorGets(t, REDIS_URL, prefix)
  const key = `${prefix}race`
  await client.set(key, 'old')
  assert.equal(
    await eventually(
      () => cache.enabled,
      (on) => on,
    ),
    true,
  )
  const read = cache.begin(key)
  tracked.reader.stream.pause() // the reply will wait in the socket
  const before = await gets.count()
  const reply = tracked.reader.get(key)
  await eventually(
    () => gets.count(),
    (n) => n > before,
  ) // Redis ran it and tracks the key
  await client.set(key, 'new')
  assert.equal(
    await eventually(
      () => read?.stale,
      (stale) => stale === true,
    ),
    true,
    'invalidated in flight',
  )
  tracked.reader.stream.resume()
  const value = (await reply) ?? undefined
  assert.equal(value, 'old', 'its own caller still gets what Redis answered then')
  cache.settle(key, read, value, Number.POSITIVE_INFINITY)
  assert.equal(cache.lookup(key, 0), undefined, 'not kept')
})
