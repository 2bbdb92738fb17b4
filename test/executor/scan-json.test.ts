// Issue 20: the answer's JSON check scans the bytes instead of parsing them. The scan must accept
// exactly what JSON.parse of the UTF-8 decoding accepts (SPEC: a body labelled JSON must be JSON).
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { checkJson, ResponseInvalid } from '../../src/executor/read-response.js'
import { scanJson } from '../../src/executor/scan-json.js'

const parses = (bytes: Buffer): boolean => {
  try {
    JSON.parse(bytes.toString('utf8'))
    return true
  } catch {
    return false
  }
}

/** A byte drawn mostly from JSON's own alphabet, so mutations land on the grammar's edges. */
const jsonByte = fc.oneof(
  fc.constantFrom(...Buffer.from('{}[]",:.-+eE0123456789tfnrul\\/bu \t\n\rA\x00\x1f\x7f')),
  fc.integer({ min: 0, max: 255 }),
)
const edit = fc.record({
  op: fc.constantFrom('insert', 'delete', 'replace', 'cut'),
  at: fc.nat(),
  byte: jsonByte,
})

function mutate(bytes: Buffer, edits: readonly { op: string; at: number; byte: number }[]): Buffer {
  let out = bytes
  for (const { op, at, byte } of edits) {
    const p = at % (out.length + 1)
    if (op === 'insert') out = Buffer.concat([out.subarray(0, p), Buffer.from([byte]), out.subarray(p)])
    else if (op === 'delete') out = Buffer.concat([out.subarray(0, p), out.subarray(p + 1)])
    else if (op === 'cut') out = out.subarray(0, p)
    else if (p < out.length) {
      out = Buffer.from(out)
      out[p] = byte
    }
  }
  return out
}

const text = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
  fc.string({ unit: 'binary' }).map((value) => JSON.stringify(value)),
  fc.double().map((value) => JSON.stringify(value)),
  fc
    .array(fc.constantFrom(...'{}[]",:-0123456789.eE+ truefalsenull\\u"a'.split('')), { maxLength: 30 })
    .map((parts) => parts.join('')),
)

describe('scanJson', () => {
  test('accepts exactly what JSON.parse accepts: generated JSON, and the same mutated', () => {
    fc.assert(
      fc.property(text, fc.array(edit, { maxLength: 3 }), (source, edits) => {
        const bytes = mutate(Buffer.from(source, 'utf8'), edits)
        assert.equal(scanJson(bytes, 0), parses(bytes), JSON.stringify(bytes.toString('latin1')))
      }),
      { numRuns: 20_000 },
    )
  })

  test('arbitrary bytes, including ones that are not UTF-8, against JSON.parse', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (raw) => {
        const bytes = Buffer.from(raw)
        assert.equal(scanJson(bytes, 0), parses(bytes))
      }),
      { numRuns: 20_000 },
    )
  })

  test('cases at the grammar edges', () => {
    const cases = [
      '0',
      '-0',
      '01',
      '-',
      '1.',
      '.5',
      '1e',
      '1e+',
      '1E-2',
      '-1.5e10',
      '1.5e',
      '0x1',
      'Infinity',
      'NaN',
      'true',
      'tru',
      'truex',
      'null ',
      ' null',
      'nul',
      'false',
      '"a',
      '"\\u00e9"',
      '"\\u00g9"',
      '"\\x"',
      '"\\',
      '"\t"',
      '"\x7f"',
      '[]',
      '[',
      '[,]',
      '[1,]',
      '[1 2]',
      '{}',
      '{',
      '{"a"}',
      '{"a":}',
      '{"a":1,}',
      '{a:1}',
      "{'a':1}",
      '{"a":1 "b":2}',
      '[]]',
      '{}}',
      '[}',
      '{]',
      '"a"b',
      '1 2',
      '',
      ' ',
      '\ufeff{}',
      '\u00a0{}',
      '\u2028[]',
      '{"\u00e9":"\u2028"}',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
      `${'['.repeat(70)}${']'.repeat(69)}`,
    ]
    for (const source of cases) {
      const bytes = Buffer.from(source, 'utf8')
      assert.equal(scanJson(bytes, 0), parses(bytes), JSON.stringify(source.slice(0, 40)))
    }
    // Bytes that are not UTF-8 decode to U+FFFD: allowed in a string, nowhere else.
    for (const raw of [
      [0x22, 0xff, 0x22],
      [0x22, 0xc3, 0x22],
      [0xff],
      [0x5b, 0x80, 0x5d],
      [0x22, 0xed, 0xa0, 0x80, 0x22],
    ]) {
      const bytes = Buffer.from(raw)
      assert.equal(scanJson(bytes, 0), parses(bytes), bytes.toString('hex'))
    }
  })

  test('starts where it is told: after a byte order mark', () => {
    assert.equal(scanJson(Buffer.from('\ufeff{"a":1}'), 3), true)
    assert.equal(scanJson(Buffer.from('\ufeff\ufeff{"a":1}'), 3), false)
  })
})

describe('checkJson with the scan', () => {
  test('refuses with the message JSON.parse gives, keeps a valid body and drops one BOM', () => {
    const good = Buffer.from('{"id":"42"}')
    assert.equal(checkJson(good, 'application/json'), good)
    assert.deepEqual(checkJson(Buffer.from('\ufeff{"id":"42"}'), 'application/json'), good)
    let message = ''
    try {
      JSON.parse('{"id":')
    } catch (err) {
      message = (err as Error).message
    }
    assert.throws(
      () => checkJson(Buffer.from('{"id":'), 'application/json; charset=utf-8'),
      (err: unknown) =>
        err instanceof ResponseInvalid &&
        err.message === `it is labelled application/json but the body is not JSON (${message})`,
    )
    assert.equal(checkJson(Buffer.from('{"id":'), 'text/plain').toString(), '{"id":')
  })
})
