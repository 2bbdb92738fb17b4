import type { Catalog, JsonSchema, Tool } from '../catalog/types.js'
import { describeSchema, sentence } from './describe-schema.js'

/** seed 000: the only parameter types Opal's parser takes. */
export type OpalType = 'string' | 'number' | 'boolean' | 'object' | 'array'

export interface OpalParameter {
  readonly name: string
  readonly type: OpalType
  readonly description: string
  readonly required: boolean
}

export interface OpalAuthRequirement {
  readonly provider: string
  readonly scope_bundle: string
  readonly required: boolean
}

export interface OpalFunction {
  readonly name: string
  readonly description: string
  readonly parameters: readonly OpalParameter[]
  readonly endpoint: string
  readonly http_method: 'POST'
  readonly auth_requirements?: readonly OpalAuthRequirement[]
}

export interface OpalDiscovery {
  readonly functions: readonly OpalFunction[]
  readonly name: string
  readonly description: string
  readonly version: string
}

export interface OpalOptions {
  readonly name: string
  readonly description?: string
  readonly version: string
  /** Per service id: Opal auth requirements its tools declare. */
  readonly authRequirements?: Readonly<
    Record<string, readonly { provider: string; scopeBundle: string; required?: boolean }[]>
  >
}

/**
 * seed 000: `{ functions, name, description, version }`; every function has exactly name,
 * description, parameters (an array of `{ name, type, description, required }`), a relative
 * `/tools/<wire name>` endpoint and `http_method: POST`, plus `auth_requirements` when configured.
 */
export function renderOpalDiscovery(catalog: Catalog, viewName: string, options: OpalOptions): OpalDiscovery {
  const view = catalog.views[viewName]
  const byId = new Map(catalog.tools.map((tool) => [tool.id, tool]))
  const functions = (view?.toolIds ?? []).map((id) => renderFunction(byId.get(id)!, options))
  const services = catalog.services.map((service) => service.title).join(', ')
  return {
    functions,
    name: options.name,
    description: options.description ?? `Tools for ${services || 'no services yet'}.`,
    version: options.version,
  }
}

function renderFunction(tool: Tool, options: OpalOptions): OpalFunction {
  const auth = options.authRequirements?.[tool.serviceId] ?? []
  return {
    name: tool.wireName,
    description: toolDescription(tool),
    parameters: renderParameters(tool.inputSchema),
    endpoint: `/tools/${tool.wireName}`,
    http_method: 'POST',
    // seed 000 / Opal SDKs: present only when non-empty, with snake_case scope_bundle.
    ...(auth.length > 0
      ? {
          auth_requirements: auth.map((a) => ({
            provider: a.provider,
            scope_bundle: a.scopeBundle,
            required: a.required ?? true,
          })),
        }
      : {}),
  }
}

/** The tool description with its price (seed 002: agents need to know cost before calling). */
export function toolDescription(tool: Tool): string {
  return tool.price ? `${sentence(tool.description)} Price: ${tool.price}.` : tool.description
}

function renderParameters(inputSchema: JsonSchema): OpalParameter[] {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((inputSchema.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    type: opalType(schema),
    // seed 000: no default/enum/examples/items keys — their information goes into the text.
    description: describeSchema(schema, `The ${name} argument.`, {
      enumValues: true,
      structure: true,
      constraints: true,
    }),
    required: required.has(name),
  }))
}

/** JSON Schema type → the five Opal types; integer is a number, unions take their first non-null member. */
export function opalType(schema: JsonSchema): OpalType {
  const declared = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (declared) {
    case 'integer':
    case 'number':
      return 'number'
    case 'boolean':
    case 'string':
    case 'object':
    case 'array':
      return declared
  }
  // The catalog writes every type out (infer-type.ts); a reference or an untyped union is left.
  if (schema.$ref) return 'object'
  const variants = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined
  if (Array.isArray(variants) && variants.length > 0) {
    const types = [...new Set(variants.map(opalType))]
    return types.length === 1 || !types.includes('object') ? types[0]! : 'object'
  }
  return 'string'
}
