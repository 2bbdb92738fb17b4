import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMemorySessionStore } from '../../src/sessions/memory.js'
import { sessionStoreBehaviour } from './behaviour.js'

sessionStoreBehaviour('memory store', async (clock, graceSeconds) =>
  createMemorySessionStore({ now: () => clock.now, graceSeconds }),
)

test('memory store: every live session is held (cached answers it synchronously)', async () => {
  const clock = { now: new Date('2026-01-01T00:00:00Z') }
  const store = createMemorySessionStore({ now: () => clock.now, graceSeconds: 1 })
  const session = await store.create({ profile: 'discover', ttlSeconds: 1 })
  assert.deepEqual(store.cached?.(session.code), session)
  clock.now = new Date(clock.now.getTime() + 1_500)
  assert.deepEqual(store.cached?.(session.code), session, 'expired, within grace')
  clock.now = new Date(clock.now.getTime() + 1_000)
  assert.equal(store.cached?.(session.code), undefined, 'forgotten')
  assert.equal(await store.get(session.code), undefined)
})
