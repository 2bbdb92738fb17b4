import type { Catalog, Tool } from '../catalog/types.js'
import type { ToolOutcome } from '../executor/types.js'
import { toolDescription } from './opal.js'
import { viewTools } from './openai.js'
import { openAIStrictSchema } from './target-schema.js'

/** An MCP tool (2025-11-25 `Tool`). */
export interface McpTool {
  readonly name: string
  readonly title: string
  readonly description: string
  /** MCP requires an object schema at the root (the renderer wraps any other). */
  readonly inputSchema: { readonly type: 'object'; readonly [keyword: string]: unknown }
  /**
   * The catalog's lenient output schema (root `type: "object"`), when the tool's success answer is
   * a JSON object: clients then demand structuredContent and check it against this.
   */
  readonly outputSchema?: { readonly type: 'object'; readonly [keyword: string]: unknown }
  readonly annotations: {
    readonly title: string
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: boolean
  }
}

export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType: string; blob: string } }

export interface McpCallResult {
  content: McpContent[]
  structuredContent?: Record<string, unknown>
  isError: boolean
  [key: string]: unknown
}

/**
 * The view's tools for tools/list: wire names, the canonical input schema, safety as annotations.
 * `strict`: the input schemas of OpenAI's strict mode (every object closed, every property
 * required, optional ones nullable), so a client converting tools for strict mode keeps every
 * tool; the executor reads their `null`s as "left out". The output schema is the same in both.
 */
export function renderMcpTools(
  catalog: Catalog,
  viewName: string,
  { strict = false }: { readonly strict?: boolean } = {},
): McpTool[] {
  return viewTools(catalog, viewName).map((tool) => ({
    name: tool.wireName,
    title: tool.title,
    description: toolDescription(tool),
    inputSchema: (strict ? openAIStrictSchema(tool.inputSchema) : tool.inputSchema) as McpTool['inputSchema'],
    ...('schema' in tool.structuredOutput
      ? { outputSchema: tool.structuredOutput.schema as NonNullable<McpTool['outputSchema']> }
      : {}),
    annotations: annotationsOf(tool),
  }))
}

function annotationsOf(tool: Tool): McpTool['annotations'] {
  return {
    title: tool.title,
    readOnlyHint: tool.safety.readOnly,
    destructiveHint: tool.safety.destructive,
    idempotentHint: tool.safety.idempotent,
    openWorldHint: tool.safety.openWorld,
  }
}

/**
 * An executor outcome as a tools/call result (SPEC §2 MCP): the body as text, plus
 * `structuredContent` when it is a JSON object (2xx only, unchanged, whether or not it matches
 * the tool's output schema: the gateway counts a mismatch, it does not judge the answer); images
 * and audio as such; other bytes as a blob.
 * Upstream failures, refusals and invalid arguments are `isError: true` results with a text
 * that says what to do (2025-11-25: input validation errors are tool results, not protocol errors).
 */
export function renderCallResult(outcome: ToolOutcome, toolName: string): McpCallResult {
  if (outcome.kind === 'refusal') {
    const { error, violations } = outcome.body as {
      error: string
      violations?: { path: string; message: string }[]
    }
    const details = violations?.map((v) => `- ${v.path}: ${v.message}`).join('\n')
    return { content: [{ type: 'text', text: details ? `${error}\n${details}` : error }], isError: true }
  }
  const ok = outcome.status >= 200 && outcome.status < 300
  const prefix = ok ? '' : `Upstream answered HTTP ${outcome.status}. `
  const { body } = outcome
  switch (body.type) {
    case 'empty':
      return {
        content: [{ type: 'text', text: `${prefix}HTTP ${outcome.status}, no content.` }],
        isError: !ok,
      }
    case 'text':
      return { content: [{ type: 'text', text: prefix + body.text }], isError: !ok }
    case 'json': {
      const text = body.bytes.toString('utf8')
      const value = parseJson(text)
      const structured = ok && value !== null && typeof value === 'object' && !Array.isArray(value)
      return {
        content: [{ type: 'text', text: prefix + text }],
        ...(structured ? { structuredContent: value as Record<string, unknown> } : {}),
        isError: !ok,
      }
    }
    case 'binary': {
      const media = /^(image|audio)\//.exec(body.contentType)?.[1] as 'image' | 'audio' | undefined
      if (media && ok)
        return { content: [{ type: media, data: body.base64, mimeType: body.contentType }], isError: false }
      const uri = `toolgate://${toolName}/response`
      return {
        content: [{ type: 'resource', resource: { uri, mimeType: body.contentType, blob: body.base64 } }],
        isError: !ok,
      }
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
