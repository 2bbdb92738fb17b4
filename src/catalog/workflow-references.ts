import { type Condition, parseCondition } from '../executor/workflow/condition.js'
import {
  type Expression,
  expressionsIn,
  isExpressionLike,
  parseExpression,
  parseTemplate,
} from '../executor/workflow/expression.js'
import { isRecord } from '../util/is-record.js'
import type { ProblemSink } from './problems.js'
import type { Workflow, WorkflowCriterion } from './types.js'

/**
 * What can be known at load time about where a workflow's expressions and actions point:
 * `$steps.<id>.outputs.<name>` names a step of the workflow and an output that step declares,
 * `$inputs.<name>` a declared input, a goto or dependsOn a step or workflow that exists, and
 * step IDs are unique. Each miss is an error at the workflow's pointer; false then.
 */
export function checkReferences(
  workflow: Workflow,
  pointer: string,
  workflowIds: ReadonlySet<unknown>,
  sink: ProblemSink,
): boolean {
  let ok = true
  const fail = (
    code: 'workflow-expression-invalid' | 'workflow-target-missing' | 'workflow-invalid',
    at: string,
    message: string,
  ) => {
    ok = false
    sink.error(code, at, `workflow ${workflow.workflowId}: ${message}`)
  }
  const steps = new Map(workflow.steps.map((step) => [step.stepId, step]))
  if (steps.size !== workflow.steps.length)
    fail('workflow-invalid', `${pointer}/steps`, 'two steps share a stepId')
  const inputs = isRecord(workflow.inputs.properties) ? workflow.inputs.properties : undefined
  const checkExpression = (expression: Expression, at: string) => {
    if (expression.root === 'steps') {
      const [stepId, , name] = expression.names
      const step = steps.get(stepId!)
      if (!step)
        return fail(
          'workflow-expression-invalid',
          at,
          `${expression.text} names step ${stepId}, which does not exist`,
        )
      if (step.toolId && !Object.hasOwn(step.outputs, name!))
        fail('workflow-expression-invalid', at, `${expression.text}: step ${stepId} has no output ${name}`)
    }
    if (
      expression.root === 'inputs' &&
      inputs &&
      workflow.inputs.additionalProperties === false &&
      !Object.hasOwn(inputs, expression.names[0]!)
    )
      fail(
        'workflow-expression-invalid',
        at,
        `${expression.text}: the workflow has no input ${expression.names[0]}`,
      )
    if (expression.root === 'workflows' && !workflowIds.has(expression.names[0]))
      fail(
        'workflow-expression-invalid',
        at,
        `${expression.text} names workflow ${expression.names[0]}, which does not exist`,
      )
  }
  const checkText = (text: string, at: string) => {
    if (isExpressionLike(text)) {
      const parsed = parseExpression(text)
      if (parsed.ok) checkExpression(parsed.expression, at)
      return
    }
    const parsed = parseTemplate(text)
    if (parsed.ok) for (const part of parsed.template) if (typeof part !== 'string') checkExpression(part, at)
  }
  const checkCriteria = (criteria: readonly WorkflowCriterion[], at: string) =>
    criteria.forEach((criterion, i) => {
      if (criterion.context) checkText(criterion.context, `${at}/${i}/context`)
      if (criterion.type !== 'simple') return
      const parsed = parseCondition(criterion.condition)
      if (parsed.ok)
        for (const expression of conditionExpressions(parsed.condition))
          checkExpression(expression, `${at}/${i}/condition`)
    })
  workflow.steps.forEach((step, i) => {
    const at = `${pointer}/steps/${i}`
    for (const text of expressionsIn(step.parameters.map((p) => p.value))) checkText(text, `${at}/parameters`)
    for (const text of expressionsIn(step.requestBody ?? {})) checkText(text, `${at}/requestBody`)
    for (const text of Object.values(step.outputs)) checkText(text, `${at}/outputs`)
    checkCriteria(step.successCriteria, `${at}/successCriteria`)
    for (const [list, name] of [
      [step.onSuccess, 'onSuccess'],
      [step.onFailure, 'onFailure'],
    ] as const)
      list.forEach((action, j) => {
        checkCriteria(action.criteria, `${at}/${name}/${j}/criteria`)
        if (action.stepId !== undefined && !steps.has(action.stepId))
          fail(
            'workflow-target-missing',
            `${at}/${name}/${j}`,
            `step ${step.stepId}, action ${action.name} goes to step ${action.stepId}, which does not exist`,
          )
        if (action.workflowId !== undefined && !workflowIds.has(action.workflowId))
          fail(
            'workflow-target-missing',
            `${at}/${name}/${j}`,
            `step ${step.stepId}, action ${action.name} goes to workflow ${action.workflowId}, which does not exist`,
          )
      })
  })
  for (const [name, text] of Object.entries(workflow.outputs)) checkText(text, `${pointer}/outputs/${name}`)
  for (const id of workflow.dependsOn)
    if (!workflowIds.has(id))
      fail(
        'workflow-target-missing',
        `${pointer}/dependsOn`,
        `dependsOn names workflow ${id}, which does not exist`,
      )
  return ok
}

function conditionExpressions(condition: Condition): Expression[] {
  switch (condition.kind) {
    case 'literal':
      return []
    case 'expression':
      return [condition.expression]
    case 'not':
      return conditionExpressions(condition.operand)
    default:
      return [...conditionExpressions(condition.left), ...conditionExpressions(condition.right)]
  }
}
