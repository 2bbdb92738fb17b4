// One behaviour suite for every session store (SPEC §2, seed 001); memory and Redis both run it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SESSION_CODE_PATTERN, type SessionStore } from '../../src/sessions/types.js'

/** A fresh store whose clock the test controls. */
export type StoreFactory = (clock: { now: Date }, graceSeconds: number) => Promise<SessionStore>

export function sessionStoreBehaviour(name: string, factory: StoreFactory): void {
  const setup = async (t: { after(fn: () => Promise<unknown>): void }, graceSeconds = 60) => {
    const clock = { now: new Date('2026-01-01T00:00:00Z') }
    const store = await factory(clock, graceSeconds)
    t.after(() => store.close())
    return { store, clock }
  }

  test(`${name}: create then get; codes carry 160 random bits`, async (t) => {
    const { store } = await setup(t)
    const session = await store.create({ profile: 'discover', ttlSeconds: 60 })
    assert.match(session.code, SESSION_CODE_PATTERN)
    assert.deepEqual(session, {
      code: session.code,
      profile: 'discover',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:01:00.000Z',
    })
    assert.deepEqual(await store.get(session.code), session)
    const codes = new Set(
      await Promise.all(
        Array.from({ length: 200 }, () => store.create({ profile: 'p', ttlSeconds: 5 }).then((s) => s.code)),
      ),
    )
    assert.equal(codes.size, 200)
  })

  test(`${name}: an unknown code is undefined; delete removes once`, async (t) => {
    const { store } = await setup(t)
    assert.equal(await store.get('A'.repeat(32)), undefined)
    const session = await store.create({ profile: 'discover', ttlSeconds: 60 })
    assert.equal(await store.delete(session.code), true)
    assert.equal(await store.delete(session.code), false)
    assert.equal(await store.get(session.code), undefined)
  })

  test(`${name}: an expired session is still returned during its grace period (for the 403), then forgotten`, async (t) => {
    const { store, clock } = await setup(t, 2)
    const session = await store.create({ profile: 'discover', ttlSeconds: 1 })
    clock.now = new Date(clock.now.getTime() + 1_500)
    assert.deepEqual(await store.get(session.code), session, 'expired but within grace')
    await new Promise((resolve) => setTimeout(resolve, 3_200))
    clock.now = new Date(clock.now.getTime() + 3_200)
    assert.equal(await store.get(session.code), undefined, 'forgotten after the grace period')
  })

  test(`${name}: cached (where the store has it) answers what get answers, or undefined; never more`, async (t) => {
    const { store, clock } = await setup(t, 2)
    // What cached may say about `code` now: nothing, or exactly get's answer.
    const agrees = async (code: string, label: string) => {
      const held = store.cached?.(code)
      const got = await store.get(code)
      if (held !== undefined) assert.deepEqual(held, got, label)
      const after = store.cached?.(code)
      if (after !== undefined) assert.deepEqual(after, got, `${label} (after get)`)
      return got
    }
    assert.equal(store.cached?.('A'.repeat(32)), undefined, 'unknown')
    assert.equal(await agrees('A'.repeat(32), 'unknown'), undefined)
    const session = await store.create({ profile: 'discover', ttlSeconds: 1 })
    assert.deepEqual(await agrees(session.code, 'fresh'), session)
    clock.now = new Date(clock.now.getTime() + 1_500)
    assert.deepEqual(await agrees(session.code, 'expired within grace'), session)
    const gone = await store.create({ profile: 'discover', ttlSeconds: 60 })
    await agrees(gone.code, 'before delete')
    assert.equal(await store.delete(gone.code), true)
    assert.equal(store.cached?.(gone.code), undefined, 'deleted here: not held a moment longer')
    assert.equal(await agrees(gone.code, 'deleted'), undefined)
    await new Promise((resolve) => setTimeout(resolve, 3_200))
    clock.now = new Date(clock.now.getTime() + 3_200)
    assert.equal(store.cached?.(session.code), undefined, 'forgotten after the grace period')
    assert.equal(await agrees(session.code, 'forgotten'), undefined)
  })

  test(`${name}: health is ok`, async (t) => {
    const { store } = await setup(t)
    assert.equal(await store.health(), 'ok')
  })
}
