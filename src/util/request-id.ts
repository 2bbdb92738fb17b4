import { randomFillSync } from 'node:crypto'

/** UUIDs made per refill of the pool: one `randomFillSync` and one hex pass for this many requests. */
const BATCH = 1024
const UUID_CHARS = 36
/** Each byte's two hex digits, as character codes. */
const HIGH = Uint8Array.from({ length: 256 }, (_, byte) => '0123456789abcdef'.charCodeAt(byte >> 4))
const LOW = Uint8Array.from({ length: 256 }, (_, byte) => '0123456789abcdef'.charCodeAt(byte & 0x0f))
const DASH = 0x2d

const random = Buffer.alloc(BATCH * 16)
const text = Buffer.alloc(BATCH * UUID_CHARS)
let batch = ''
let next = BATCH

/**
 * A random (version 4) UUID, as `crypto.randomUUID()` makes, for a request's id. Node's builds
 * each one by concatenating 20 strings: ≈ 600 bytes of garbage per request and a string that
 * must be flattened again where it is used (the header check, the log line). Here a batch is
 * written as text into one buffer, read as one string, and each id is a slice of that string
 * (V8 makes a 36-character slice without copying it).
 */
export function randomRequestId(): string {
  if (next === BATCH) refill()
  const start = next++ * UUID_CHARS
  return batch.slice(start, start + UUID_CHARS)
}

function refill(): void {
  randomFillSync(random)
  let at = 0
  for (let from = 0; from < random.length; from += 16) {
    random[from + 6] = (random[from + 6]! & 0x0f) | 0x40 // version 4
    random[from + 8] = (random[from + 8]! & 0x3f) | 0x80 // variant 10xx (RFC 9562)
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = DASH // 8-4-4-4-12
      const byte = random[from + i]!
      text[at++] = HIGH[byte]!
      text[at++] = LOW[byte]!
    }
  }
  batch = text.toString('latin1')
  next = 0
}
