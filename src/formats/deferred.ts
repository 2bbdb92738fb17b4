import type { Catalog, Service } from '../catalog/types.js'
import { assignNamespaceNames } from '../catalog/wire-name.js'
import { cutAtSentence } from './describe-schema.js'
import {
  type ClaudeTool,
  MAX_TOOL_DESCRIPTION,
  renderClaudeTools,
  renderOpenAITools,
  type ToolDocumentOptions,
  viewTools,
} from './openai.js'

/** A function inside an OpenAI namespace (Responses API `NamespaceTool.Function`), loaded by tool search. */
export interface OpenAIDeferredFunction {
  readonly type: 'function'
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
  readonly defer_loading: true
  readonly strict?: true
}

/** Responses API `NamespaceTool`: one per service; the model sees its name and description up front. */
export interface OpenAINamespace {
  readonly type: 'namespace'
  readonly name: string
  readonly description: string
  readonly tools: readonly OpenAIDeferredFunction[]
}

/** Responses API `ToolSearchTool`, hosted: OpenAI searches the deferred functions of the request. */
export interface OpenAIToolSearch {
  readonly type: 'tool_search'
}

export type OpenAIDeferredTool = OpenAINamespace | OpenAIToolSearch

/** Anthropic's BM25 tool search tool (Messages `ToolSearchToolBm25_20251119`): natural-language queries. */
export interface ClaudeToolSearch {
  readonly type: 'tool_search_tool_bm25_20251119'
  readonly name: 'tool_search_tool_bm25'
}

export type ClaudeDeferredTool = (ClaudeTool & { readonly defer_loading: true }) | ClaudeToolSearch

const CLAUDE_TOOL_SEARCH: ClaudeToolSearch = {
  type: 'tool_search_tool_bm25_20251119',
  name: 'tool_search_tool_bm25',
}

/**
 * OpenAI's tool search (Responses API, gpt-5.4 and later): every function of the view deferred,
 * grouped in one namespace per service described by the service, then `{ type: "tool_search" }`.
 * The functions are /openai.json's (same wire names, descriptions and parameters); `strict`
 * gives /openai.json?strict=true's. An empty view is an empty list: a search over nothing is no tool.
 */
export function renderOpenAIDeferred(
  catalog: Catalog,
  viewName: string,
  options: ToolDocumentOptions & { readonly strict?: boolean } = {},
): OpenAIDeferredTool[] {
  const tools = viewTools(catalog, viewName, options.serviceId)
  const functions = renderOpenAITools(catalog, viewName, options)
  const byService = new Map<string, OpenAIDeferredFunction[]>()
  for (const [index, tool] of tools.entries()) {
    const { name, description, parameters, strict } = functions[index]!.function
    const deferred = {
      type: 'function' as const,
      name,
      description,
      parameters,
      defer_loading: true as const,
    }
    const list = byService.get(tool.serviceId) ?? []
    list.push(strict ? { ...deferred, strict } : deferred)
    byService.set(tool.serviceId, list)
  }
  if (byService.size === 0) return []
  const namespaces = assignNamespaceNames(catalog.services)
  const grouped: OpenAIDeferredTool[] = catalog.services
    .filter((service) => byService.has(service.id))
    .map((service) => ({
      type: 'namespace',
      name: namespaces.get(service.id)!,
      description: namespaceDescription(service),
      tools: byService.get(service.id)!,
    }))
  return [...grouped, { type: 'tool_search' }]
}

/** The service's own description, else its title: what the model reads to decide where to search. */
function namespaceDescription(service: Service): string {
  const text = service.description?.trim() || service.title.trim() || service.alias
  return cutAtSentence(text, MAX_TOOL_DESCRIPTION)
}

/**
 * Anthropic's tool search tool: the BM25 search tool, never deferred (the API refuses a request
 * whose tools are all deferred), then /claude.json's tools, each with `defer_loading: true`.
 */
export function renderClaudeDeferred(
  catalog: Catalog,
  viewName: string,
  options: ToolDocumentOptions = {},
): ClaudeDeferredTool[] {
  const tools = renderClaudeTools(catalog, viewName, options)
  if (tools.length === 0) return []
  return [CLAUDE_TOOL_SEARCH, ...tools.map((tool) => ({ ...tool, defer_loading: true as const }))]
}

/**
 * What a model holds before any search: OpenAI shows each namespace's name and description (its
 * functions load on search), Anthropic only the tools not deferred (the search tool).
 */
export function deferredUpfront(document: unknown): unknown {
  if (!Array.isArray(document)) return document
  return document.flatMap((tool: Record<string, unknown>) => {
    if (tool.defer_loading === true) return []
    if (tool.type !== 'namespace') return [tool]
    const { tools: _loadedOnSearch, ...namespace } = tool
    return [namespace]
  })
}
