import { isRecord } from '../util/is-record.js'
import { childPointer, pointerOf } from '../util/json-pointer.js'
import { deriveRequestBody } from './derive-body.js'
import { type CredentialParameters, deriveParameters } from './derive-parameters.js'
import { readAuth, readSecuritySchemes } from './derive-security.js'
import { type OperationExtensions, readOperationExtensions } from './extensions.js'
import { assembleInputSchema } from './input-schema.js'
import { countSchemaNodes, DEFAULT_CATALOG_LIMITS } from './limits.js'
import type { LoadedSource } from './load-sources.js'
import { createSchemaContext } from './normalize-schema.js'
import { deriveToolOutput } from './output-schema.js'
import type { ProblemSink } from './problems.js'
import { deriveSafety } from './safety.js'
import type { SchemaContext } from './schema-context.js'
import { firstOrigin } from './server-origin.js'
import { type AuthRequirement, HTTP_METHODS, type HttpMethod, type Service, type Tool } from './types.js'
import { snakeCase } from './wire-name.js'

/** A tool before the catalog-wide wire-name pass. */
export type ToolDraft = Omit<Tool, 'wireName'>

export interface DerivedService {
  readonly service: Service
  readonly tools: ToolDraft[]
}

/** What the configuration sets for one service's derivation. */
export interface ServiceSettings {
  /** limits.schemaNodes: an input schema over it leaves its tool out. */
  readonly schemaNodes: number
  /** limits.outputSchemaNodes: an output schema over it describes the top level only. */
  readonly outputSchemaNodes: number
  /** `services.<id>.outputSchemas`: false offers no output schemas (an upstream that breaks its spec). */
  readonly outputSchemas: boolean
  /** `services.<id>.upstream`: replaces every server of the spec, so no operation leaves it. */
  readonly upstream?: string
  /** `services.<id>.allowOrigins`, as origins: other origins that still get the service's credentials. */
  readonly allowOrigins?: readonly string[]
}

const DEFAULT_SETTINGS: ServiceSettings = {
  schemaNodes: DEFAULT_CATALOG_LIMITS.schemaNodes,
  outputSchemaNodes: DEFAULT_CATALOG_LIMITS.outputSchemaNodes,
  outputSchemas: true,
}

interface DocumentContext {
  readonly document: Record<string, unknown>
  readonly service: Service
  readonly ctx: SchemaContext
  readonly sink: ProblemSink
  readonly ids: Set<string>
  readonly settings: ServiceSettings
}

/** One OpenAPI 3.1 document → its service record and a tool per GET/POST/PUT/PATCH/DELETE operation. */
export function deriveService(
  source: LoadedSource,
  naming: { id: string; alias: string },
  sink: ProblemSink,
  settings: ServiceSettings = DEFAULT_SETTINGS,
): DerivedService | undefined {
  const document = source.document
  const paths = document.paths ?? {}
  if (!isRecord(paths)) {
    sink.error('source-invalid-structure', '/paths', 'paths must be an object of path items')
    return undefined
  }
  const ctx = createSchemaContext(document, sink)
  const info = isRecord(document.info) ? document.info : {}
  const service: Service = {
    id: naming.id,
    alias: naming.alias,
    sourceId: source.sourceId,
    title: typeof info.title === 'string' && info.title.trim() !== '' ? info.title : naming.id,
    ...(typeof info.description === 'string' ? { description: info.description } : {}),
    ...(info.version !== undefined ? { apiVersion: String(info.version) } : {}),
    servers: serverUrls(document.servers),
    securitySchemes: readSecuritySchemes(document, ctx),
  }
  const context: DocumentContext = { document, service, ctx, sink, ids: new Set(), settings }
  const tools: ToolDraft[] = []
  for (const [rawPath, rawItem] of Object.entries(paths)) {
    const itemPointer = pointerOf('paths', rawPath)
    const resolved = ctx.resolveObject(rawItem, itemPointer)
    if (!resolved || !isRecord(resolved.value)) continue
    for (const method of HTTP_METHODS) {
      if (!(method in resolved.value)) continue
      const tool = deriveTool(context, rawPath, resolved.value, method, resolved.pointer)
      if (tool && withinSchemaLimit(tool, settings.schemaNodes, sink)) tools.push(tool)
    }
  }
  return { service, tools }
}

/** A tool whose input schema is over the limit is left out alone (a warning: the file serves on). */
function withinSchemaLimit(tool: ToolDraft, limit: number, sink: ProblemSink): boolean {
  const nodes = countSchemaNodes(tool.inputSchema, limit)
  if (nodes <= limit) return true
  sink.warn(
    'tool-schema-too-large',
    tool.pointer,
    `the input schema of ${tool.id} has more than ${limit} nodes (limits.schemaNodes); the tool is left out: simplify its parameters and body, or raise limits.schemaNodes`,
  )
  return false
}

/** Each service's distinct auth requirements, by content: see sharedAuth. */
const authOf = new WeakMap<Service, Map<string, readonly AuthRequirement[]>>()

/**
 * One array per distinct requirement within a service, shared by its tools (they are read, never
 * changed): most operations inherit the document's `security`, and the serializer that carries the
 * catalog to the main thread writes a shared object once (issue 20, row 6: Kubernetes' 1,002
 * tools held 1,002 equal arrays, 0.47 MB of the main thread's old space). Read per tool first, so
 * each tool's problems are still reported at its own pointer.
 */
function sharedAuth(service: Service, auth: readonly AuthRequirement[]): readonly AuthRequirement[] {
  let known = authOf.get(service)
  if (!known) {
    known = new Map()
    authOf.set(service, known)
  }
  const key = JSON.stringify(auth)
  const seen = known.get(key)
  if (seen) return seen
  known.set(key, auth)
  return auth
}

function deriveTool(
  context: DocumentContext,
  rawPath: string,
  item: Record<string, unknown>,
  method: HttpMethod,
  itemPointer: string,
): ToolDraft | undefined {
  const { ctx, sink, service } = context
  const pointer = childPointer(itemPointer, method)
  const operation = item[method]
  if (!isRecord(operation)) {
    sink.warn(
      'operation-invalid',
      pointer,
      `${method.toUpperCase()} ${rawPath} is not an operation object; it is left out`,
    )
    return undefined
  }
  const path = rawPath.split('#')[0]!
  const id = toolId(context, operation, method, rawPath, pointer)
  const extensions = readOperationExtensions(operation, pointer, sink)
  const auth = sharedAuth(
    service,
    readAuth(
      operation.security ?? context.document.security,
      service,
      childPointer(pointer, 'security'),
      sink,
    ),
  )
  const params = deriveParameters(
    [
      { list: item.parameters, pointer: childPointer(itemPointer, 'parameters') },
      { list: operation.parameters, pointer: childPointer(pointer, 'parameters') },
    ],
    path,
    ctx,
    sink,
    credentialParameters(service, auth),
  )
  const body = deriveRequestBody(operation.requestBody, childPointer(pointer, 'requestBody'), ctx, sink)
  const defs = ctx.defsFor([...params.defs, ...(body?.defs ?? [])])
  const input = assembleInputSchema([...params.candidates, ...(body?.candidates ?? [])], defs, sink)
  const operationId =
    typeof operation.operationId === 'string' && operation.operationId.trim() !== ''
      ? operation.operationId
      : undefined
  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : ''
  const tags = Array.isArray(operation.tags)
    ? operation.tags.filter((tag): tag is string => typeof tag === 'string')
    : []
  const servers = serverUrls(operation.servers ?? item.servers)
  reportForeignOrigin(context, servers, childPointer(operation.servers ? pointer : itemPointer, 'servers'))
  return {
    id,
    serviceId: service.id,
    ...(operationId ? { operationId } : {}),
    method,
    rawPath,
    path,
    title: summary || operationId || `${method.toUpperCase()} ${path}`,
    description: describe(extensions, summary, operation.description, method, path),
    tags,
    group: extensions.group ?? tags[0] ?? firstStaticSegment(path),
    commandName: extensions.name ?? kebabCase(operationId ?? `${method} ${path.replace(/[{}]/g, '')}`),
    aliases: extensions.aliases,
    hidden: extensions.hidden,
    ignored: extensions.ignore,
    deprecated: operation.deprecated === true,
    parameters: params.parameters,
    ...(body ? { requestBody: body.body } : {}),
    auth,
    safety: deriveSafety(method, extensions),
    ...(extensions.price ? { price: extensions.price } : {}),
    ...(extensions.output ? { output: extensions.output } : {}),
    ...(extensions.pagination ? { pagination: extensions.pagination } : {}),
    ...(extensions.retry ? { retry: extensions.retry } : {}),
    ...(servers.length > 0 ? { servers } : {}),
    inputSchema: input.inputSchema,
    structuredOutput: context.settings.outputSchemas
      ? deriveToolOutput(operation.responses, pointer, ctx, context.settings.outputSchemaNodes)
      : {
          reason: `output schemas are turned off for this service (services.${service.id}.outputSchemas: false)`,
        },
    binding: { arguments: input.arguments, ...(body ? { bodyContentType: body.contentType } : {}) },
    sourceId: service.sourceId,
    pointer,
  }
}

/**
 * The parameters the tool's API keys take (`in` and lower-cased name → security scheme): the
 * gateway sends those from the service's credential, so an argument of that name would be
 * replaced or dropped. Specs often declare the key as a parameter too.
 */
function credentialParameters(service: Service, auth: readonly AuthRequirement[]): CredentialParameters {
  const taken = new Map<string, string>()
  for (const { schemes } of auth)
    for (const { scheme } of schemes) {
      const definition = service.securitySchemes[scheme]
      if (definition?.type === 'apiKey' && definition.in && definition.paramName)
        taken.set(`${definition.in}:${definition.paramName.toLowerCase()}`, scheme)
    }
  return taken
}

/**
 * A path's or operation's `servers` naming another origin than the service's: its calls go there,
 * and the service's credentials stay behind unless the operator allows that origin (issue 41
 * class 8; the executor enforces it, this says so in /catalog). A configured upstream replaces
 * every server, so then nothing leaves.
 */
function reportForeignOrigin(context: DocumentContext, servers: readonly string[], pointer: string): void {
  const { service, settings, sink } = context
  if (servers.length === 0 || settings.upstream) return
  const own = firstOrigin(service.servers)
  const target = firstOrigin([...servers, ...service.servers])
  if (target === undefined || target === own || settings.allowOrigins?.includes(target)) return
  sink.warn(
    'server-origin-foreign',
    pointer,
    `these servers send the call to ${target}, not to the service's origin ${own ?? '(none)'}: the service's credentials are not sent there. If it is the same API, add ${target} to services.${service.id}.allowOrigins`,
  )
}

/** seed 003: `<service-id>:<operationId>`, else `<service-id>:<method>:<raw-path>`; duplicates fall back too. */
function toolId(
  context: DocumentContext,
  operation: Record<string, unknown>,
  method: HttpMethod,
  rawPath: string,
  pointer: string,
): string {
  const { service, sink, ids } = context
  const fallback = `${service.id}:${method}:${rawPath}`
  const operationId = typeof operation.operationId === 'string' ? operation.operationId.trim() : ''
  let id = fallback
  if (operationId === '') {
    sink.warn('operation-without-id', pointer, `no operationId; the tool ID is ${fallback}`)
  } else if (ids.has(`${service.id}:${operationId}`)) {
    sink.warn(
      'tool-id-duplicate',
      childPointer(pointer, 'operationId'),
      `operationId ${operationId} is used twice in this service; this operation's tool ID is ${fallback}`,
    )
  } else {
    id = `${service.id}:${operationId}`
  }
  ids.add(id)
  return id
}

function describe(
  extensions: OperationExtensions,
  summary: string,
  description: unknown,
  method: HttpMethod,
  path: string,
) {
  if (extensions.description) return extensions.description
  const detail = typeof description === 'string' ? description.trim() : ''
  if (summary && detail)
    return detail.startsWith(summary) ? detail : `${summary}${/[.!?]$/.test(summary) ? '' : '.'} ${detail}`
  return summary || detail || `${method.toUpperCase()} ${path}`
}

function firstStaticSegment(path: string): string {
  return path.split('/').find((segment) => segment !== '' && !segment.startsWith('{')) ?? 'default'
}

function kebabCase(text: string): string {
  return snakeCase(text).replaceAll('_', '-')
}

/** Server URLs with their variables replaced by the defaults. */
function serverUrls(servers: unknown): string[] {
  if (!Array.isArray(servers)) return []
  return servers.filter(isRecord).flatMap((server) => {
    if (typeof server.url !== 'string') return []
    const variables = isRecord(server.variables) ? server.variables : {}
    return [
      server.url.replace(/\{([^}]+)\}/g, (match, name: string) => {
        const variable = variables[name]
        return isRecord(variable) && variable.default !== undefined ? String(variable.default) : match
      }),
    ]
  })
}
