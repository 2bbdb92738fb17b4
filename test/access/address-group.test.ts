// Per-address budgets count an IPv6 address by its /64, however it is spelled (issue 41, class 4).
import assert from 'node:assert/strict'
import { isIP } from 'node:net'
import { test } from 'node:test'
import fc from 'fast-check'
import { addressGroup } from '../../src/access/address-group.js'

const hextet = fc.integer({ min: 0, max: 0xffff })
const eight = fc.array(hextet, { minLength: 8, maxLength: 8 })

/** The ways one IPv6 address is written: expanded, padded, compressed, upper case, with a zone. */
function spellings(groups: number[]): string[] {
  const hex = groups.map((g) => g.toString(16))
  const padded = groups.map((g) => g.toString(16).padStart(4, '0'))
  return [
    hex.join(':'),
    padded.join(':'),
    padded.join(':').toUpperCase(),
    compressed(hex),
    `${compressed(hex)}%eth0`,
    compressed(hex).toUpperCase(),
  ]
}

/** RFC 5952: the longest run of two or more zero groups as `::`. */
function compressed(hex: string[]): string {
  let best = { at: -1, length: 1 }
  for (let i = 0; i < 8; i++) {
    let j = i
    while (j < 8 && hex[j] === '0') j++
    if (j - i > best.length) best = { at: i, length: j - i }
  }
  if (best.at === -1) return hex.join(':')
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`
}

test('every spelling of an IPv6 address counts as its /64', () => {
  fc.assert(
    fc.property(eight, (groups) => {
      fc.pre(!(groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff))
      const expected = `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
      for (const spelling of spellings(groups)) assert.equal(addressGroup(spelling), expected, spelling)
    }),
    { numRuns: 500 },
  )
})

test('addresses of one /64 share a group; of two /64s, never', () => {
  fc.assert(
    fc.property(eight, eight, (a, b) => {
      const sameNetwork = [...a.slice(0, 4), ...b.slice(4)]
      const mapped = (groups: number[]) => groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff
      fc.pre(!mapped(a) && !mapped(b) && !mapped(sameNetwork))
      const text = (groups: number[]) => groups.map((g) => g.toString(16)).join(':')
      assert.equal(addressGroup(compressed(sameNetwork.map((g) => g.toString(16)))), addressGroup(text(a)))
      const differs = a.slice(0, 4).some((g, i) => g !== b[i])
      assert.equal(addressGroup(text(a)) !== addressGroup(text(b)), differs)
    }),
    { numRuns: 500 },
  )
})

test('IPv4 counts per address, and an IPv4-mapped IPv6 address as that IPv4 address', () => {
  fc.assert(
    fc.property(fc.ipV4(), (ipv4) => {
      assert.equal(addressGroup(ipv4), ipv4)
      assert.equal(addressGroup(`::ffff:${ipv4}`), ipv4)
      assert.equal(addressGroup(`::FFFF:${ipv4}`), ipv4)
      const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number]
      const hex = `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
      assert.equal(addressGroup(hex), ipv4, hex)
      assert.equal(addressGroup(`0:0:0:0:0:ffff:${ipv4}`), ipv4)
    }),
    { numRuns: 300 },
  )
})

test('anything that is not an address is counted as itself', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string({ maxLength: 60 }), fc.stringMatching(/^[0-9a-fA-F:.%]{0,45}$/)),
      (value) => {
        const group = addressGroup(value)
        if (isIP(value.split('%')[0]!) === 0) assert.equal(group, value)
        else assert.ok(group.length > 0)
      },
    ),
    { numRuns: 500 },
  )
  assert.equal(addressGroup('client:tiny'), 'client:tiny')
  assert.equal(addressGroup('unknown'), 'unknown')
})
