import assert from 'node:assert/strict'
import { test } from 'node:test'
import { randomRequestId } from '../../src/util/request-id.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

test('request ids are random version 4 UUIDs, unique across refills of the pool', () => {
  const seen = new Set<string>()
  const hexCounts = new Map<string, number>()
  for (let i = 0; i < 5_000; i++) {
    const id = randomRequestId()
    assert.match(id, UUID_V4)
    seen.add(id)
    for (const char of id.slice(24)) hexCounts.set(char, (hexCounts.get(char) ?? 0) + 1)
  }
  assert.equal(seen.size, 5_000)
  // The last 12 digits are random bytes: every hex digit shows up, none takes over (expected 3,750 each).
  assert.equal(hexCounts.size, 16)
  for (const [char, count] of hexCounts) assert.ok(count > 3_000 && count < 4_500, `${char}: ${count}`)
})
