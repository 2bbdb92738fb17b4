import type { DerivedService, ToolDraft } from './derive-service.js'
import { type ArgumentCandidate, assembleInputSchema } from './input-schema.js'
import { createSchemaContext } from './normalize-schema.js'
import type { ProblemSink } from './problems.js'
import { type LoadedRemote, REMOTE_TOKEN_SCHEME, type RemoteTool } from './remote-source.js'
import { deriveSafety } from './safety.js'
import type { HttpMethod, Parameter, Service } from './types.js'
import { snakeCase } from './wire-name.js'

/**
 * A remote source's tools join the catalog as a service of their own (seed 004): same views, wire
 * names and surfaces. Arguments go in the query for GET and DELETE, in a JSON body otherwise;
 * jsonrpc_mcp tools take them as the JSON-RPC `params`.
 */
export function deriveRemoteService(loaded: LoadedRemote, sink: ProblemSink): DerivedService {
  const { source } = loaded
  const service: Service = {
    id: source.id,
    alias: source.alias ?? source.id,
    sourceId: `remote:${source.id}`,
    title: source.id,
    servers: [source.baseUrl],
    securitySchemes: { [REMOTE_TOKEN_SCHEME]: { name: REMOTE_TOKEN_SCHEME, type: 'http', scheme: 'bearer' } },
  }
  const tools = loaded.tools.map((tool, index) => deriveRemoteTool(service, tool, index, sink))
  return { service, tools }
}

function deriveRemoteTool(service: Service, tool: RemoteTool, index: number, sink: ProblemSink): ToolDraft {
  const pointer = `/tools/${index}`
  const method = tool.method.toLowerCase() as HttpMethod
  const ctx = createSchemaContext(tool.inputSchema, sink)
  const normalized = ctx.normalize(tool.inputSchema, `${pointer}/inputSchema`)
  const properties = (normalized.schema.properties ?? {}) as Record<string, Record<string, unknown>>
  const required = new Set((normalized.schema.required as string[] | undefined) ?? [])
  const inQuery = tool.protocol === 'http' && (method === 'get' || method === 'delete')
  const parameters: Parameter[] = []
  const candidates: ArgumentCandidate[] = Object.entries(properties).map(([name, schema]) => {
    if (inQuery) {
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        deprecated: false,
        schema,
        style: 'form',
        explode: true,
        allowReserved: false,
      })
    }
    return {
      name,
      location: inQuery ? ('query' as const) : ('body' as const),
      target: inQuery ? { in: 'query' as const, name } : { in: 'body' as const, name },
      schema,
      required: required.has(name),
      pointer: `${pointer}/inputSchema/properties/${name}`,
    }
  })
  const input = assembleInputSchema(candidates, ctx.defsFor(normalized.defs), sink)
  const hasBody = !inQuery
  return {
    id: `${service.id}:${tool.name}`,
    serviceId: service.id,
    operationId: tool.name,
    method,
    rawPath: tool.endpoint,
    path: tool.endpoint,
    title: tool.title ?? tool.name,
    description: tool.description || tool.name,
    tags: [],
    group: service.id,
    commandName: snakeCase(tool.name).replaceAll('_', '-'),
    aliases: [],
    hidden: false,
    ignored: false,
    deprecated: false,
    parameters,
    ...(hasBody
      ? {
          requestBody: {
            required: tool.protocol === 'jsonrpc',
            contentTypes: ['application/json'],
            schemas: { 'application/json': normalized.schema },
            encodings: {},
          },
        }
      : {}),
    auth: tool.requiresAuth ? [{ schemes: [{ scheme: REMOTE_TOKEN_SCHEME, scopes: [] }] }] : [],
    safety: deriveSafety(method, { aliases: [], hidden: false, ignore: false, safety: {} }),
    inputSchema: input.inputSchema,
    structuredOutput: { reason: 'a remote source declares no response schema' },
    binding: { arguments: input.arguments, ...(hasBody ? { bodyContentType: 'application/json' } : {}) },
    sourceId: service.sourceId,
    pointer,
    remote: { protocol: tool.protocol, name: tool.name },
  }
}
