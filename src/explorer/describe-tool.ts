import type {
  ArgumentTarget,
  Catalog,
  CredentialSourceSummary,
  JsonSchema,
  Service,
  Tool,
} from '../catalog/types.js'
import { isRecord } from '../util/is-record.js'

/** One row of a tool's argument table: the name an agent sends, and where the gateway puts it. */
export interface ArgumentRow {
  readonly name: string
  /** path, query, header, cookie, body (a property of the body) or body (the whole body). */
  readonly in: ArgumentTarget['in']
  /** The whole request body rather than one of its properties. */
  readonly wholeBody?: true
  readonly type: string
  readonly required: boolean
  readonly description?: string
  /** The spec's own name when the wire name differs (`DateCreated<` → `DateCreated_lt`). */
  readonly renamedFrom?: string
  readonly deprecated?: true
}

/** A tool as its page shows it, save the renderings (the route adds those). */
export interface ToolFacts {
  readonly name: string
  readonly id: string
  readonly title: string
  readonly description: string
  readonly service: { readonly id: string; readonly alias: string; readonly title: string }
  readonly source: {
    readonly file: string
    readonly pointer: string
    readonly method: string
    readonly path: string
    readonly operationId?: string
    readonly remote?: Tool['remote']
  }
  readonly tags: readonly string[]
  readonly deprecated: boolean
  readonly hidden: boolean
  readonly safety: Tool['safety']
  readonly price?: string
  /** The security schemes a call may use, one list per alternative. */
  readonly auth: readonly (readonly string[])[]
  /** Where the service's configured credentials come from (issue 45), never their values. */
  readonly credentialSources: readonly CredentialSourceSummary[]
  readonly bodyContentType?: string
  /** The profiles (views) that list it. */
  readonly profiles: readonly string[]
  readonly arguments: readonly ArgumentRow[]
  readonly inputSchema: JsonSchema
  /** A workflow tool's steps, in order (issue 47). */
  readonly workflow?: Tool['workflow']
}

/** What the explorer's tool page says about a tool: read off the catalog, nothing decided again. */
export function describeTool(catalog: Catalog, service: Service, tool: Tool): ToolFacts {
  return {
    name: tool.wireName,
    id: tool.id,
    title: tool.title,
    description: tool.description,
    service: { id: service.id, alias: service.alias, title: service.title },
    source: {
      file: tool.sourceId,
      pointer: tool.pointer,
      method: tool.method.toUpperCase(),
      path: tool.rawPath,
      ...(tool.operationId ? { operationId: tool.operationId } : {}),
      ...(tool.remote ? { remote: tool.remote } : {}),
    },
    tags: tool.tags,
    deprecated: tool.deprecated,
    hidden: tool.hidden,
    safety: tool.safety,
    ...(tool.price ? { price: tool.price } : {}),
    auth: tool.auth.map((alternative) => alternative.schemes.map(({ scheme }) => scheme)),
    credentialSources: service.credentialSources ?? [],
    ...(tool.binding.bodyContentType ? { bodyContentType: tool.binding.bodyContentType } : {}),
    profiles: Object.values(catalog.views)
      .filter((view) => view.toolIds.includes(tool.id))
      .map((view) => view.name),
    arguments: argumentRows(tool),
    inputSchema: tool.inputSchema,
    ...(tool.workflow ? { workflow: tool.workflow } : {}),
  }
}

/** The input schema's properties in order, each with where it goes and the name it had in the spec. */
export function argumentRows(tool: Tool): ArgumentRow[] {
  const properties = isRecord(tool.inputSchema.properties) ? tool.inputSchema.properties : {}
  const required = new Set(Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [])
  const parameters = new Map(tool.parameters.map((p) => [`${p.in}:${p.name}`, p]))
  return Object.entries(tool.binding.arguments).map(([name, target]) => {
    const schema = isRecord(properties[name]) ? properties[name] : {}
    const parameter = 'whole' in target ? undefined : parameters.get(`${target.in}:${target.name}`)
    const description =
      (typeof schema.description === 'string' ? schema.description : undefined) ?? parameter?.description
    const renamedFrom = 'whole' in target || target.name === name ? undefined : target.name
    return {
      name,
      in: target.in,
      ...('whole' in target ? { wholeBody: true as const } : {}),
      type: typeLabel(schema),
      required: required.has(name),
      ...(description ? { description } : {}),
      ...(renamedFrom ? { renamedFrom } : {}),
      ...(parameter?.deprecated || schema.deprecated === true ? { deprecated: true as const } : {}),
    }
  })
}

/** `string`, `integer | null`, `array of string`, `object`, `oneOf (2)`: a type a person reads. */
export function typeLabel(schema: Record<string, unknown>): string {
  const { type } = schema
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : []
  const base = types.map((t) =>
    t === 'array' && isRecord(schema.items) ? `array of ${typeLabel(schema.items)}` : t,
  )
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : ''
  if (base.length > 0) return `${base.join(' | ')}${format}`
  for (const keyword of ['oneOf', 'anyOf', 'allOf'] as const) {
    const branches = schema[keyword]
    if (Array.isArray(branches)) return `${keyword} (${branches.length})`
  }
  if (Array.isArray(schema.enum)) return 'enum'
  if (schema.const !== undefined) return 'const'
  return 'any'
}
