import { isIPv4, isIPv6 } from 'node:net'

/**
 * The address a per-address budget counts (issue 41): an IPv4 address itself; an IPv6 address by
 * its /64, the network one subscriber is given (RFC 6177), whose 2^64 addresses a host may rotate
 * through at will; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack socket
 * reports) as the IPv4 address it is. The /64 is written in one canonical form, however the
 * address was spelled (leading zeros, `::`, upper case, a zone). Anything else (a forwarded value
 * that is no address) is counted as itself.
 */
export function addressGroup(address: string): string {
  if (isIPv4(address)) return address
  const zone = address.indexOf('%')
  const bare = zone === -1 ? address : address.slice(0, zone)
  if (!isIPv6(bare)) return address
  const groups = hextets(bare)
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of an address `isIPv6` accepted (no zone): `::` filled, a dotted tail split. */
function hextets(address: string): number[] {
  let text = address
  const tail: number[] = []
  const lastColon = text.lastIndexOf(':')
  if (text.includes('.', lastColon)) {
    const [a, b, c, d] = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number) as [number, number, number, number]
    tail.push((a << 8) | b, (c << 8) | d)
    text = text.slice(0, lastColon + 1)
    if (!text.endsWith('::')) text = text.slice(0, -1)
  }
  const [head = '', rest] = text.split('::')
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((hex) => Number.parseInt(hex, 16)))
  const first = parse(head)
  const last = rest === undefined ? [] : parse(rest)
  const zeros = 8 - tail.length - first.length - last.length
  return [...first, ...new Array<number>(zeros).fill(0), ...last, ...tail]
}
