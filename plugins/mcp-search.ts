import type { McpCallResult, McpTool } from '../src/formats/index.js'
import { isRecord } from '../src/util/is-record.js'
import { parseJsonBody } from '../src/util/parse-json-body.js'

/**
 * MCP search mode (issue 15): tools/list answers these three instead of a 1,000-tool list; the
 * agent searches, reads the schemas of what it chose, and calls by name. The real tools stay
 * callable by name too, and the normal mode lists them all.
 */
export const SEARCH_TOOL = 'search_tools'
export const DESCRIBE_TOOL = 'describe_tools'
export const CALL_TOOL = 'call_tool'

/** `?mode=`: `list` every tool, `search` the meta-tools. */
export const MCP_MODES = ['list', 'search'] as const
export type McpMode = (typeof MCP_MODES)[number]

export const META_SEARCH_MAX_LIMIT = 20
export const META_DESCRIBE_MAX = 20
const MAX_QUERY = 500

const annotations = (title: string, readOnly: boolean) => ({
  title,
  readOnlyHint: readOnly,
  destructiveHint: !readOnly,
  idempotentHint: readOnly,
  openWorldHint: !readOnly,
})

export const META_TOOLS: readonly McpTool[] = [
  {
    name: SEARCH_TOOL,
    title: 'Search tools',
    description:
      'Find the tools for a task among the whole catalog. Pass the task in words ("refund a charge", "list pods in namespace web"); answers the best matches, best first: name, title, one line, required arguments and a confidence (the share of the words of the task each matched). Then describe_tools for their input schemas.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY, description: 'The task, in words.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: META_SEARCH_MAX_LIMIT,
          default: 5,
          description: 'At most this many tools.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: annotations('Search tools', true),
  },
  {
    name: DESCRIBE_TOOL,
    title: 'Describe tools',
    description:
      'The full definitions of tools found with search_tools: description, input schema (the arguments call_tool takes), output schema and safety hints.',
    inputSchema: {
      type: 'object',
      properties: {
        names: {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 128 },
          minItems: 1,
          maxItems: META_DESCRIBE_MAX,
          description: 'Tool names as search_tools answered them.',
        },
      },
      required: ['names'],
      additionalProperties: false,
    },
    annotations: annotations('Describe tools', true),
  },
  {
    name: CALL_TOOL,
    title: 'Call a tool',
    description:
      'Call one tool by name with its arguments (as its input schema from describe_tools says). Answers what the tool answers; tools that need approval need it here too.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 128, description: 'The tool name.' },
        arguments: { type: 'object', description: "The tool's arguments.", additionalProperties: true },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: annotations('Call a tool', false),
  },
]

/**
 * The meta-tools as `?strict=true` lists them (issue 42 item 5): OpenAI's strict mode wants every
 * object closed and every property required, with no open object anywhere, so `limit` may be null
 * (the default) and call_tool takes the tool's arguments as JSON text of an object. Clients that
 * convert MCP tools to strict mode (`@openai/agents` with convertSchemasToStrict) keep all three.
 */
const STRICT_PROPERTIES: Record<string, Record<string, unknown>> = {
  [SEARCH_TOOL]: {
    query: { type: 'string', description: `The task, in words (at most ${MAX_QUERY} characters).` },
    limit: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: META_SEARCH_MAX_LIMIT,
      description: `At most this many tools, 1 to ${META_SEARCH_MAX_LIMIT}; null for 5.`,
    },
  },
  [DESCRIBE_TOOL]: {
    names: {
      type: 'array',
      items: { type: 'string' },
      description: `Tool names as search_tools answered them, 1 to ${META_DESCRIBE_MAX}.`,
    },
  },
  [CALL_TOOL]: {
    name: { type: 'string', description: 'The tool name.' },
    arguments: {
      type: 'string',
      description:
        'The tool\'s arguments as the JSON text of one object, as its input schema from describe_tools says (e.g. {"ticketId":"T-1001"}).',
    },
  },
}

export const STRICT_META_TOOLS: readonly McpTool[] = META_TOOLS.map((tool) => {
  const properties = STRICT_PROPERTIES[tool.name]!
  return {
    ...tool,
    inputSchema: {
      type: 'object',
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    },
  }
})

export const isMetaTool = (name: string) => META_TOOLS.some((tool) => tool.name === name)

/** What the meta-tools need from the request: its search, its tool list, its tool call. */
/** One search_tools answer: compact, since describe_tools gives the schemas (issue 43). */
export interface MetaToolMatch {
  readonly name: string
  readonly title: string
  /** The description's first sentence, at most 160 characters. */
  readonly description: string
  /** The arguments call_tool needs, by name. */
  readonly required: readonly string[]
  readonly score: number
  /** The share of the task's words the tool matched, 0 to 1 (search-index.ts). */
  readonly confidence: number
}

/** A description's first sentence, at most 160 characters, cut at a word. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const sentence = /^(.+?[.!?])(?:\s|$)/.exec(flat)?.[1] ?? flat
  if (sentence.length <= 160) return sentence
  const cut = sentence.slice(0, 159)
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 80))}…`
}

export interface MetaToolDeps {
  search(query: string, limit: number): Promise<MetaToolMatch[]>
  /** The tool definitions this endpoint would list, by name. */
  definition(name: string): McpTool | undefined
  call(name: string, args: Record<string, unknown>): Promise<McpCallResult>
}

/** A meta-tool call: its arguments checked here (the SDK does not validate them), then answered. */
export async function callMetaTool(name: string, args: unknown, deps: MetaToolDeps): Promise<McpCallResult> {
  const given = isRecord(args) ? args : {}
  if (name === SEARCH_TOOL) {
    const { query } = given
    const limit = given.limit ?? 5 // null: the strict schema's "left out"
    if (typeof query !== 'string' || query.trim() === '' || query.length > MAX_QUERY)
      return toolError(`${SEARCH_TOOL}: pass query, the task in words (1 to ${MAX_QUERY} characters)`)
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > META_SEARCH_MAX_LIMIT)
      return toolError(`${SEARCH_TOOL}: limit is a whole number from 1 to ${META_SEARCH_MAX_LIMIT}`)
    const tools = await deps.search(query, limit as number)
    return result({ tools }, tools.length === 0 ? 'No tool matches; try other words.' : undefined)
  }
  if (name === DESCRIBE_TOOL) {
    const { names } = given
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      names.length > META_DESCRIBE_MAX ||
      !names.every(isName)
    )
      return toolError(
        `${DESCRIBE_TOOL}: pass names, 1 to ${META_DESCRIBE_MAX} tool names from ${SEARCH_TOOL}`,
      )
    const found = names.map((n) => [n, deps.definition(n)] as const)
    const tools = found.flatMap(([, tool]) => (tool ? [tool] : []))
    const unknown = found.flatMap(([n, tool]) => (tool ? [] : [n]))
    return result({ tools, ...(unknown.length > 0 ? { unknown } : {}) })
  }
  const { name: target } = given
  if (!isName(target) || isMetaTool(target))
    return toolError(`${CALL_TOOL}: pass name, a tool name from ${SEARCH_TOOL}`)
  const targetArgs = argumentsOf(given.arguments)
  if (!targetArgs.ok) return toolError(`${CALL_TOOL}: ${targetArgs.problem}`)
  if (!isRecord(targetArgs.value))
    return toolError(`${CALL_TOOL}: arguments must be an object, or the JSON text of one`)
  return deps.call(target, targetArgs.value)
}

/** call_tool's arguments: an object, or (strict mode) the JSON text of one; absent or null is `{}`. */
function argumentsOf(value: unknown): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (value === undefined || value === null) return { ok: true, value: {} }
  if (typeof value !== 'string') return { ok: true, value }
  const parsed = parseJsonBody(value)
  return parsed.ok ? parsed : { ok: false, problem: parsed.problem.replace('the body', 'the arguments text') }
}

const isName = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 128

function result(structured: Record<string, unknown>, note?: string): McpCallResult {
  return {
    content: [{ type: 'text', text: note ?? JSON.stringify(structured) }],
    structuredContent: structured,
    isError: false,
  }
}

function toolError(text: string): McpCallResult {
  return { content: [{ type: 'text', text }], isError: true }
}
