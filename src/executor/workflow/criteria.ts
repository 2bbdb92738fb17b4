import { JSONPath } from 'jsonpath-plus'
import { linearPattern } from '../../catalog/linear-pattern.js'
import type { WorkflowCriterion } from '../../catalog/types.js'
import { evaluateCondition, parseCondition } from './condition.js'
import { ABSENT, type RunContext, RunError, readExpression, readOutput } from './evaluate.js'

/**
 * Whether every criterion holds (Arazzo §4.6.9): simple conditions, regex (RE2, linear time:
 * re2js via linear-pattern.ts) and JSONPath (jsonpath-plus, its safe evaluator: no eval, no
 * Function). A criterion that cannot be evaluated is a RunError naming it.
 */
export function allHold(criteria: readonly WorkflowCriterion[], context: RunContext): boolean {
  return criteria.every((criterion) => holds(criterion, context))
}

function holds(criterion: WorkflowCriterion, context: RunContext): boolean {
  const where = `${context.where}, criterion ${criterion.condition.slice(0, 200)}`
  if (criterion.type === 'simple') {
    const parsed = parseCondition(criterion.condition)
    if (!parsed.ok) throw new RunError(`${where} ${parsed.message}`)
    const read = (expression: Parameters<typeof readExpression>[0]) => {
      const value = readExpression(expression, context)
      return value === ABSENT ? undefined : value
    }
    return evaluateCondition(parsed.condition, read)
  }
  const value = readOutput(criterion.context!, context)
  if (criterion.type === 'regex') {
    const pattern = linearPattern(criterion.condition)
    if (!pattern) throw new RunError(`${where} is no linear-time regular expression`)
    if (value === ABSENT || value === null || typeof value === 'object') return false
    return pattern.test(String(value))
  }
  if (value === ABSENT) return false
  try {
    const found = JSONPath({ path: criterion.condition, json: value as object, eval: 'safe', wrap: true })
    return Array.isArray(found) && found.length > 0
  } catch (err) {
    throw new RunError(`${where}: the JSONPath cannot be evaluated (${(err as Error).message.slice(0, 200)})`)
  }
}
