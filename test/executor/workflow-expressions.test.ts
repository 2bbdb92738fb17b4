// Issue 47: the runtime-expression, template and condition parsers take any string: each either
// parses or says what is wrong — never throws, never loops — and what they print they read back.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { evaluateCondition, parseCondition } from '../../src/executor/workflow/condition.js'
import { parseExpression, parseTemplate } from '../../src/executor/workflow/expression.js'

fc.configureGlobal({ includeErrorInReport: true })

const hostile = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom('$', '{$', '$steps.', '$response.body#', '(((((', '!!!!!!', "'", '$inputs.a#~2'),
  fc.nat({ max: 5000 }).map((n) => `${'('.repeat(n)}1${')'.repeat(n)}`),
  fc.nat({ max: 5000 }).map((n) => '!'.repeat(n) + 'true'),
  fc.nat({ max: 3000 }).map((n) => Array.from({ length: n }, () => '1 == 1').join(' && ')),
  fc.nat({ max: 3000 }).map((n) => '{$'.repeat(n)),
)

test('any string: parsed or refused with a message, never a throw', () => {
  fc.assert(
    fc.property(hostile, (text) => {
      for (const parse of [parseExpression, parseTemplate, parseCondition]) {
        const parsed = parse(text)
        if (!parsed.ok) assert.ok(parsed.message.length > 0 && parsed.message.length < 600)
      }
      const condition = parseCondition(text)
      if (condition.ok)
        assert.equal(typeof evaluateCondition(condition.condition, () => undefined), 'boolean')
    }),
    { numRuns: 400 },
  )
})

const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/)
const pointer = fc
  .array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { maxLength: 3 })
  .map((tokens) => tokens.map((t) => `/${t}`).join(''))
const expression = fc.oneof(
  fc.constantFrom('$statusCode', '$url', '$method'),
  pointer.map((p) => `$response.body${p ? `#${p}` : ''}`),
  name.map((n) => `$response.header.${n}`),
  fc.tuple(name, name).map(([a, b]) => `$inputs.${a}.${b}`),
  fc.tuple(name, name, pointer).map(([s, o, p]) => `$steps.${s}.outputs.${o}${p ? `#${p}` : ''}`),
  fc.tuple(name, name).map(([w, o]) => `$workflows.${w}.outputs.${o}`),
  name.map((n) => `$components.parameters.${n}`),
)

test('every well-formed runtime expression parses, and its text is kept', () => {
  fc.assert(
    fc.property(expression, (text) => {
      const parsed = parseExpression(text)
      assert.ok(parsed.ok, `${text}: ${parsed.ok ? '' : parsed.message}`)
      assert.equal(parsed.expression.text, text)
    }),
  )
})

test('templates split into their text and expressions, in order', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.stringMatching(/^[a-z ]{1,8}$/),
          expression.map((e) => `{${e}}`),
        ),
        { maxLength: 6 },
      ),
      (parts) => {
        const parsed = parseTemplate(parts.join(''))
        assert.ok(parsed.ok)
        const rebuilt = parsed.template
          .map((part) => (typeof part === 'string' ? part : `{${part.text}}`))
          .join('')
        assert.equal(rebuilt, parts.join(''))
      },
    ),
  )
})

test('conditions compare as Arazzo says: numbers, case-insensitive strings, && || ! and parentheses', () => {
  const read = (values: Record<string, unknown>) => (e: { text: string }) => values[e.text]
  const holds = (text: string, values: Record<string, unknown> = {}) => {
    const parsed = parseCondition(text)
    assert.ok(parsed.ok, text)
    return evaluateCondition(parsed.condition, read(values) as never)
  }
  assert.equal(holds('$statusCode == 200', { $statusCode: 200 }), true)
  assert.equal(holds('$statusCode == 200', { $statusCode: 404 }), false)
  assert.equal(holds("$response.body#/status == 'PAID'", { '$response.body#/status': 'paid' }), true)
  assert.equal(holds('$statusCode >= 200 && $statusCode < 300', { $statusCode: 204 }), true)
  assert.equal(holds('!($statusCode == 200) || false', { $statusCode: 500 }), true)
  assert.equal(holds("$response.body#/n > '3'", { '$response.body#/n': 10 }), true)
  assert.equal(holds('$response.body#/missing == null'), true)
})
