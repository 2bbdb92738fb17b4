import type { Catalog, Tool } from '../catalog/types.js'
import type { ToolOutcome, Violation } from '../executor/types.js'
import type { ConformingPart } from '../executor/validate-output.js'
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
 * `structuredContent` when it is a JSON object (2xx only, unchanged; a tool with an output schema
 * then goes through conformResult); images and audio as such; other bytes as a blob.
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

/** How many paths a mismatch note lists, each cut at PATH_CHARS: the keys are the upstream's. */
const LISTED_PATHS = 5
const PATH_CHARS = 200

/**
 * A 2xx result of a tool with an output schema whose answer breaks it, made one every client
 * accepts (issue 42). MCP says structuredContent MUST conform, and the SDK clients (1.x, 2.x, and
 * the frameworks on them) throw on a result that has none or one that does not, unless it is an
 * error; an error it is not (frameworks treat those as failed calls), the upstream answered. So:
 * `isError: false`, the answer's content unchanged (the whole answer, as text), a second text
 * that states the mismatch, and as structuredContent the part that matches (`{}` for an answer
 * that is no JSON object, or when too much of it breaks the schema). `part` is what
 * OutputValidator.conformingPart kept; `mismatch` is the first violation.
 */
export function conformResult(
  result: McpCallResult,
  conformed: ConformingPart | undefined,
  mismatch: Violation,
): McpCallResult {
  // renderCallResult's key order (the SDK's too), so the fast path's bytes stay the SDK path's.
  return {
    content: [...result.content, { type: 'text', text: mismatchNote(conformed, mismatch) }],
    structuredContent: conformed?.part ?? {},
    isError: result.isError,
  }
}

function mismatchNote(conformed: ConformingPart | undefined, mismatch: Violation): string {
  const head = 'toolgate: the upstream answered, but not as its spec says'
  if (!conformed)
    return `${head}: the answer is no JSON object. It is passed on above as it came; structuredContent is empty ({}).`
  const listed = (conformed.leftOut.length > 0 ? conformed.leftOut : [mismatch])
    .slice(0, LISTED_PATHS)
    .map((v) => `${v.path.slice(0, PATH_CHARS)} ${v.message}`)
  const more = conformed.leftOut.length - listed.length
  const where = `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
  const kept = conformed.emptied
    ? 'structuredContent is empty ({})'
    : 'structuredContent is the answer without those values'
  return `${head} (output schema): ${where}. The whole answer is the text above; ${kept}.`
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
