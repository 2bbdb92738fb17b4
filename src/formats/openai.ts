import type { Catalog, Tool } from '../catalog/types.js'
import { cutAtSentence } from './describe-schema.js'
import { toolDescription } from './opal.js'
import { claudeSchema, openAISchema, openAIStrictSchema } from './target-schema.js'

/** Tool descriptions longer than this are cut at a sentence boundary (samchon rejects > 1,024). */
export const MAX_TOOL_DESCRIPTION = 1_024

export interface OpenAITool {
  readonly type: 'function'
  readonly function: {
    readonly name: string
    readonly description: string
    readonly parameters: Record<string, unknown>
    readonly strict?: true
  }
}

export interface ClaudeTool {
  readonly name: string
  readonly description: string
  readonly input_schema: Record<string, unknown>
}

export interface ToolDocumentOptions {
  /** Only this service's tools (by id). */
  readonly serviceId?: string
}

/** The view's tools, optionally one service's, in catalog order. */
export function viewTools(catalog: Catalog, viewName: string, serviceId?: string): Tool[] {
  const byId = new Map(catalog.tools.map((tool) => [tool.id, tool]))
  const ids = catalog.views[viewName]?.toolIds ?? []
  return ids
    .map((id) => byId.get(id)!)
    .filter((tool) => serviceId === undefined || tool.serviceId === serviceId)
}

/**
 * seed 002: `[{ type: "function", function: { name, description, parameters } }]` — the wire
 * name, summary + price, the body's properties flattened beside the parameters (the catalog's
 * input schema), enums kept, defaults in words. `strict` gives OpenAI's strict mode.
 */
export function renderOpenAITools(
  catalog: Catalog,
  viewName: string,
  options: ToolDocumentOptions & { readonly strict?: boolean } = {},
): OpenAITool[] {
  return viewTools(catalog, viewName, options.serviceId).map((tool) => ({
    type: 'function',
    function: {
      name: tool.wireName,
      description: cutAtSentence(toolDescription(tool), MAX_TOOL_DESCRIPTION),
      parameters: options.strict ? openAIStrictSchema(tool.inputSchema) : openAISchema(tool.inputSchema),
      ...(options.strict ? { strict: true as const } : {}),
    },
  }))
}

/** seed 002: Anthropic's shape, `[{ name, description, input_schema }]`, from the same input schema. */
export function renderClaudeTools(
  catalog: Catalog,
  viewName: string,
  options: ToolDocumentOptions = {},
): ClaudeTool[] {
  return viewTools(catalog, viewName, options.serviceId).map((tool) => ({
    name: tool.wireName,
    description: cutAtSentence(toolDescription(tool), MAX_TOOL_DESCRIPTION),
    input_schema: claudeSchema(tool.inputSchema),
  }))
}
