import type { RenderedViews } from './render-views.js'

/** What a view may cost an agent before `toolgate lint` warns (YAML `budgets`). */
export interface Budgets {
  /** Functions in one view's /openai.json: OpenAI refuses more than 128 in a request. */
  readonly openaiTools: number
  /** o200k tokens of one view in any one format, as /catalog counts them; unset: no token budget. */
  readonly tokens?: number
}

// OpenAI API reference: "A max of 128 functions are supported" (research/protocols.md §5(b)).
export const DEFAULT_BUDGETS: Budgets = { openaiTools: 128 }

export interface BudgetWarning {
  readonly view: string
  readonly format: string
  readonly code: 'budget-openai-tools' | 'budget-tokens'
  readonly message: string
}

/** The views and formats over a budget, from the sizes /catalog serves. */
export function checkBudgets(sizes: RenderedViews['sizes'], budgets: Budgets): BudgetWarning[] {
  const warnings: BudgetWarning[] = []
  for (const [view, formats] of Object.entries(sizes)) {
    const openai = formats.openai
    if (openai && openai.tools > budgets.openaiTools)
      warnings.push({
        view,
        format: 'openai',
        code: 'budget-openai-tools',
        message: `${openai.tools} functions in /openai.json, over budgets.openaiTools (${budgets.openaiTools}); OpenAI refuses more than 128 in a request: serve /openai-deferred.json (tool search) or a narrower profile`,
      })
    if (budgets.tokens === undefined) continue
    for (const [format, size] of Object.entries(formats)) {
      if (size.tokens === undefined || size.tokens <= budgets.tokens) continue
      warnings.push({
        view,
        format,
        code: 'budget-tokens',
        message: `${size.tokens}${size.tokensEstimated ? ' (estimated)' : ''} tokens, over budgets.tokens (${budgets.tokens}); the deferred documents load tools on demand, or narrow the view with a profile`,
      })
    }
  }
  return warnings
}
