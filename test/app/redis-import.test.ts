import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { testApp } from '../helpers/app.js'

const require = createRequire(import.meta.url)
/** This file imports nothing of Redis itself (not even test/helpers/redis.ts), so the app's imports are all there is. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const ioredisLoaded = () => Object.keys(require.cache).some((path) => path.includes('/node_modules/ioredis/'))

test('ioredis is loaded only by a gateway configured with Redis (≈ 6.5 MB of heap the embedded store never uses)', async (t) => {
  const embedded = await testApp(t)
  await embedded.ready()
  assert.equal(embedded.sessionStoreKind, 'memory')
  assert.equal(ioredisLoaded(), false, 'a gateway without REDIS_URL loaded ioredis')
  const shared = await testApp(t, {
    REDIS_URL,
    REDIS_KEY_PREFIX: `toolgate-test:redis-import:${process.pid}:`,
  })
  await shared.ready()
  assert.equal(shared.sessionStoreKind, 'redis')
  assert.equal(ioredisLoaded(), true, 'the check itself: a gateway with REDIS_URL loads ioredis')
})
