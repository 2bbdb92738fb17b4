import { LRUCache } from 'lru-cache'
import { type Expression, parseExpression } from './expression.js'

/**
 * Arazzo simple conditions (§4.6.9 "Condition"): literals (numbers, 'strings', true, false,
 * null), runtime expressions, `== != < <= > >=`, `!`, `&&`, `||` and parentheses. Strings
 * compare case-insensitively, as Arazzo asks. Parsed by a bounded recursive descent: nesting
 * and length are capped, so no input makes it loop, recurse without end or throw.
 */
export type Condition =
  | { readonly kind: 'literal'; readonly value: unknown }
  | { readonly kind: 'expression'; readonly expression: Expression }
  | { readonly kind: 'not'; readonly operand: Condition }
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition }
  | {
      readonly kind: 'compare'
      readonly operator: Operator
      readonly left: Condition
      readonly right: Condition
    }

type Operator = '==' | '!=' | '<' | '<=' | '>' | '>='

const MAX_LENGTH = 2_048
const MAX_NESTING = 32

type Token =
  | { readonly type: 'op'; readonly value: string }
  | { readonly type: 'literal'; readonly value: unknown }
  | { readonly type: 'expression'; readonly expression: Expression }

type ParsedCondition = { ok: true; condition: Condition } | { ok: false; message: string }

/** Parses `text`, once per distinct text (criteria are the catalog's, checked on every run). */
export function parseCondition(text: string): ParsedCondition {
  let parsed = parsedConditions.get(text)
  if (parsed === undefined) {
    parsed = parseConditionText(text)
    parsedConditions.set(text, parsed)
  }
  return parsed
}

const parsedConditions = new LRUCache<string, ParsedCondition>({ max: 10_000 })

function parseConditionText(text: string): ParsedCondition {
  if (text.length > MAX_LENGTH) return { ok: false, message: `is longer than ${MAX_LENGTH} characters` }
  const tokens = tokenize(text)
  if (typeof tokens === 'string') return { ok: false, message: tokens }
  if (tokens.length === 0) return { ok: false, message: 'is empty' }
  let at = 0
  let nesting = 0
  const peek = () => tokens[at]
  const isOp = (value: string) => {
    const token = peek()
    return token?.type === 'op' && token.value === value
  }
  const fail = (message: string): never => {
    throw new ConditionError(message)
  }
  const or = (): Condition => {
    let left = and()
    while (isOp('||')) {
      at++
      left = { kind: 'or', left, right: and() }
    }
    return left
  }
  const and = (): Condition => {
    let left = comparison()
    while (isOp('&&')) {
      at++
      left = { kind: 'and', left, right: comparison() }
    }
    return left
  }
  const comparison = (): Condition => {
    const left = unary()
    const token = peek()
    if (token?.type === 'op' && ['==', '!=', '<', '<=', '>', '>='].includes(token.value)) {
      at++
      return { kind: 'compare', operator: token.value as Operator, left, right: unary() }
    }
    return left
  }
  const unary = (): Condition => {
    if (isOp('!')) {
      at++
      if (++nesting > MAX_NESTING) fail(`nests deeper than ${MAX_NESTING}`)
      const operand = unary()
      nesting--
      return { kind: 'not', operand }
    }
    if (isOp('(')) {
      at++
      if (++nesting > MAX_NESTING) fail(`nests deeper than ${MAX_NESTING}`)
      const inner = or()
      if (!isOp(')')) fail('has a ( without its )')
      at++
      nesting--
      return inner
    }
    const token = peek()
    if (token === undefined) return fail('ends where a value is expected')
    if (token.type === 'op') return fail(`has ${token.value} where a value is expected`)
    at++
    return token.type === 'literal'
      ? { kind: 'literal', value: token.value }
      : { kind: 'expression', expression: token.expression }
  }
  try {
    const condition = or()
    if (at < tokens.length) {
      const token = tokens[at]!
      return {
        ok: false,
        message: `has an unexpected ${token.type === 'op' ? token.value : 'value'} after a complete condition`,
      }
    }
    return { ok: true, condition }
  } catch (err) {
    if (err instanceof ConditionError) return { ok: false, message: err.message }
    throw err
  }
}

class ConditionError extends Error {}

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')']
/** Where a bare runtime expression ends. */
const EXPRESSION_END = /[\s=!<>()&|]/

function tokenize(text: string): Token[] | string {
  const tokens: Token[] = []
  let at = 0
  while (at < text.length) {
    const char = text[at]!
    if (/\s/.test(char)) {
      at++
      continue
    }
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, at))
    if (op) {
      tokens.push({ type: 'op', value: op })
      at += op.length
      continue
    }
    if (char === "'" || char === '"') {
      const close = text.indexOf(char, at + 1)
      if (close === -1) return `has a string starting at ${at} that is not closed`
      tokens.push({ type: 'literal', value: text.slice(at + 1, close) })
      at = close + 1
      continue
    }
    let end = at
    while (end < text.length && !EXPRESSION_END.test(text[end]!)) end++
    const word = text.slice(at, end)
    if (word.startsWith('$')) {
      const parsed = parseExpression(word)
      if (!parsed.ok) return `${word.slice(0, 200)} ${parsed.message}`
      tokens.push({ type: 'expression', expression: parsed.expression })
    } else if (word === 'true' || word === 'false') tokens.push({ type: 'literal', value: word === 'true' })
    else if (word === 'null') tokens.push({ type: 'literal', value: null })
    else if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(word))
      tokens.push({ type: 'literal', value: Number(word) })
    else
      return `has ${word.slice(0, 200) || text[at]} at ${at}, which is no literal, operator or runtime expression`
    at = end
  }
  return tokens
}

/** Evaluates a condition; `read` gives an expression's value (it may throw a run error). */
export function evaluateCondition(condition: Condition, read: (expression: Expression) => unknown): boolean {
  return truthy(conditionValue(condition, read))
}

function conditionValue(condition: Condition, read: (expression: Expression) => unknown): unknown {
  switch (condition.kind) {
    case 'literal':
      return condition.value
    case 'expression':
      return read(condition.expression)
    case 'not':
      return !truthy(conditionValue(condition.operand, read))
    case 'and':
      return truthy(conditionValue(condition.left, read)) && truthy(conditionValue(condition.right, read))
    case 'or':
      return truthy(conditionValue(condition.left, read)) || truthy(conditionValue(condition.right, read))
    case 'compare':
      return compare(
        condition.operator,
        conditionValue(condition.left, read),
        conditionValue(condition.right, read),
      )
  }
}

function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== ''
}

function compare(operator: Operator, left: unknown, right: unknown): boolean {
  const a = comparable(left, right)
  const b = comparable(right, left)
  switch (operator) {
    case '==':
      return a === b
    case '!=':
      return a !== b
    default: {
      if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false
      const x = a as number | string
      const y = b as number | string
      return operator === '<' ? x < y : operator === '<=' ? x <= y : operator === '>' ? x > y : x >= y
    }
  }
}

/** Numbers against numeric strings compare as numbers; strings case-insensitively; the rest as JSON. */
function comparable(value: unknown, other: unknown): unknown {
  if (
    typeof value === 'string' &&
    typeof other === 'number' &&
    value.trim() !== '' &&
    Number.isFinite(Number(value))
  )
    return Number(value)
  if (typeof value === 'string') return value.toLowerCase()
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean')
    return value ?? null
  return JSON.stringify(value)
}
