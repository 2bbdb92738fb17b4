/**
 * The catalog contract: every protocol surface renders from these types and nothing else.
 * A Catalog is built by a pure function of its sources and configuration and is deep-frozen.
 */

/** A JSON Schema (2020-12 dialect) as plain data. */
export type JsonSchema = { readonly [keyword: string]: unknown }

export type Severity = 'error' | 'warning'

/** One thing wrong with a source, located by file and JSON pointer (RFC 6901). */
export interface Problem {
  readonly code: string
  readonly severity: Severity
  readonly file: string
  readonly pointer: string
  readonly message: string
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete'
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete']

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie'

export interface Service {
  readonly id: string
  /** Defaults to id; prefixes every wire name of the service. */
  readonly alias: string
  /** The source the service came from: a spec file path relative to the specs directory. */
  readonly sourceId: string
  readonly title: string
  readonly description?: string
  /** info.version of the source document. */
  readonly apiVersion?: string
  /** Server URLs from the document, variables substituted with their defaults. */
  readonly servers: readonly string[]
  readonly securitySchemes: Readonly<Record<string, SecurityScheme>>
  /** Where the configured upstream credentials come from (issue 45): sources and owners, never values. */
  readonly credentialSources?: readonly CredentialSourceSummary[]
}

/**
 * One configured credential of a service: the gateway's or a client's (`owner`), static or
 * fetched with an OAuth2 client; or (`scheme` `*`) the caller's own token, exchanged or forwarded.
 */
export interface CredentialSourceSummary {
  readonly scheme: string
  readonly source: 'gateway' | 'client' | 'fetched' | 'exchanged' | 'forwarded'
  readonly owner: string
}

/** A security scheme as seed 003 normalizes it: name, type, scheme, in, parameter name. */
export interface SecurityScheme {
  readonly name: string
  readonly type: 'apiKey' | 'http' | 'oauth2' | 'openIdConnect' | 'mutualTLS'
  /** For type http: basic, bearer, digest … (lower-cased). */
  readonly scheme?: string
  readonly in?: 'header' | 'query' | 'cookie'
  /** For type apiKey: the header, query or cookie name that carries the key. */
  readonly paramName?: string
  readonly bearerFormat?: string
  /** For type oauth2: `flows.clientCredentials.tokenUrl`, where the gateway may fetch tokens (issue 45). */
  readonly tokenUrl?: string
}

/** One way to authenticate: every scheme listed must be satisfied (OpenAPI: AND inside, OR between). */
export interface AuthRequirement {
  readonly schemes: readonly { readonly scheme: string; readonly scopes: readonly string[] }[]
}

export interface Parameter {
  /** The name on the wire (OpenAPI `name`). */
  readonly name: string
  readonly in: ParameterLocation
  readonly required: boolean
  readonly description?: string
  readonly deprecated: boolean
  readonly schema: JsonSchema
  /** OpenAPI serialization, defaults applied: style per location, explode true only for form/cookie. */
  readonly style: string
  readonly explode: boolean
  readonly allowReserved: boolean
  /** Set when the parameter is described with `content` instead of `schema`. */
  readonly contentType?: string
  /** Its own `example` / `examples` values that are short strings (at most 3): search reads their ID prefixes. */
  readonly examples?: readonly string[]
}

export interface RequestBody {
  readonly required: boolean
  readonly description?: string
  readonly contentTypes: readonly string[]
  /** The machine-readable schema snapshot per content type (seed 003). */
  readonly schemas: Readonly<Record<string, JsonSchema>>
  /** Per content type, per property: OpenAPI `encoding` (multipart/form parts). */
  readonly encodings: Readonly<Record<string, Readonly<Record<string, PropertyEncoding>>>>
}

export interface PropertyEncoding {
  readonly contentType?: string
  readonly style?: string
  readonly explode?: boolean
  readonly allowReserved?: boolean
}

export interface Safety {
  readonly readOnly: boolean
  readonly destructive: boolean
  readonly idempotent: boolean
  readonly openWorld: boolean
  readonly requiresApproval: boolean
}

export interface RetryPolicy {
  readonly maxAttempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

export interface OutputHint {
  readonly format: 'json' | 'table' | 'text'
  readonly path?: string
}

export interface PaginationHint {
  readonly style: 'cursor' | 'page' | 'offset' | 'link'
  readonly param?: string
  readonly nextPath?: string
  readonly limitParam?: string
}

/** Where one input-schema property goes in the upstream request. */
export type ArgumentTarget =
  | { readonly in: ParameterLocation; readonly name: string }
  /** A top-level property of an object body. */
  | { readonly in: 'body'; readonly name: string }
  /** The whole body (non-object bodies, polymorphic bodies, binary bodies). */
  | { readonly in: 'body'; readonly whole: true }

export interface Binding {
  /** Input-schema property key → where it goes. */
  readonly arguments: Readonly<Record<string, ArgumentTarget>>
  /** The content type the body is sent as, when the operation has a body. */
  readonly bodyContentType?: string
}

/**
 * A tool's typed result (MCP `outputSchema`, issue 16): the lenient schema of its success answer
 * when that answer is a JSON object (docs/catalog.md "Typed results"), or why it has none.
 */
export type ToolOutput =
  | {
      /** The response it comes from: `200`, `201` … or `2XX`. */
      readonly status: string
      readonly contentType: string
      /** Root `type: "object"`; structure and types only, every type also allowing null. */
      readonly schema: JsonSchema
      /** The full schema was over limits.outputSchemaNodes: only top-level properties and their types. */
      readonly topLevelOnly?: true
    }
  | { readonly reason: string }

export interface Tool {
  /** `<service-id>:<operationId>` or `<service-id>:<method>:<raw-path>` (seed 003). */
  readonly id: string
  readonly serviceId: string
  /** The one name agents see in every protocol: `^[a-zA-Z0-9_]{1,64}$`. */
  readonly wireName: string
  readonly operationId?: string
  readonly method: HttpMethod
  /** The raw path key as written in the document. */
  readonly rawPath: string
  /** The path template sent upstream: the raw path without any `#fragment`. */
  readonly path: string
  readonly title: string
  readonly description: string
  readonly tags: readonly string[]
  readonly group: string
  readonly commandName: string
  readonly aliases: readonly string[]
  readonly hidden: boolean
  readonly ignored: boolean
  readonly deprecated: boolean
  readonly parameters: readonly Parameter[]
  readonly requestBody?: RequestBody
  /** Alternatives (OR); empty means no authentication. */
  readonly auth: readonly AuthRequirement[]
  readonly safety: Safety
  /** `x-price`, e.g. "$0.01/query" (seed 002). */
  readonly price?: string
  readonly output?: OutputHint
  readonly pagination?: PaginationHint
  readonly retry?: RetryPolicy
  /** Operation- or path-level servers that override the service's. */
  readonly servers?: readonly string[]
  /** One JSON Schema object every protocol renders from. */
  readonly inputSchema: JsonSchema
  /** What a success answers, as a schema, or why no schema is offered. */
  readonly structuredOutput: ToolOutput
  readonly binding: Binding
  /** Where the operation stands in its source. */
  readonly sourceId: string
  readonly pointer: string
  /** Set for tools of a remote source (seed 004): how they are called. */
  readonly remote?: { readonly protocol: 'http' | 'jsonrpc'; readonly name: string }
  /** Set for a tool that runs an Arazzo workflow (issue 47): its Workflow.id and step names. */
  readonly workflow?: {
    readonly id: string
    readonly steps: readonly WorkflowStepSummary[]
    /** Every tool a run may call, nested and dependsOn workflows included: a caller must be allowed each. */
    readonly toolIds: readonly string[]
  }
}

/** A workflow step as a tool page, a dry run and a description name it. */
export interface WorkflowStepSummary {
  readonly stepId: string
  /** The tool the step calls, or the nested workflow's ID. */
  readonly toolId?: string
  readonly workflowId?: string
  readonly description?: string
  /** Whether the step's tool needs approval. */
  readonly requiresApproval: boolean
}

export interface View {
  readonly name: string
  readonly description?: string
  /** Tool IDs in catalog order. */
  readonly toolIds: readonly string[]
}

/** An Arazzo action of onSuccess / onFailure (1.0.1 §4.6.7–8), `reference` ones resolved. */
export interface WorkflowAction {
  readonly name: string
  readonly type: 'end' | 'goto' | 'retry'
  readonly stepId?: string
  readonly workflowId?: string
  /** Seconds before a retry (retry only). */
  readonly retryAfter?: number
  /** How many retries this action allows (retry only); 1 when unset. */
  readonly retryLimit?: number
  readonly criteria: readonly WorkflowCriterion[]
}

/** An Arazzo Criterion: `simple` (the default), `regex` or `jsonpath` on a context expression. */
export interface WorkflowCriterion {
  readonly condition: string
  readonly context?: string
  readonly type: 'simple' | 'regex' | 'jsonpath'
}

/** A step parameter: where it goes (omitted for a workflow step's inputs) and its value or expression. */
export interface WorkflowParameter {
  readonly name: string
  readonly in?: 'path' | 'query' | 'header' | 'cookie'
  readonly value: unknown
}

export interface WorkflowStep {
  readonly stepId: string
  readonly toolId?: string
  /** A step that runs another workflow instead of an operation. */
  readonly workflowId?: string
  readonly description?: string
  readonly parameters: readonly WorkflowParameter[]
  readonly requestBody?: {
    readonly contentType?: string
    readonly payload?: unknown
    readonly replacements: readonly { readonly target: string; readonly value: unknown }[]
  }
  readonly successCriteria: readonly WorkflowCriterion[]
  readonly onSuccess: readonly WorkflowAction[]
  readonly onFailure: readonly WorkflowAction[]
  /** Output name → runtime expression. */
  readonly outputs: Readonly<Record<string, string>>
}

export interface Workflow {
  /** `<source stem>:<workflowId>`. */
  readonly id: string
  readonly workflowId: string
  readonly sourceId: string
  readonly summary?: string
  readonly description?: string
  /** The workflow's `inputs` JSON Schema (`{type: object}` when it has none). */
  readonly inputs: JsonSchema
  /** Workflow IDs (this source's) that must have run before this one. */
  readonly dependsOn: readonly string[]
  readonly steps: readonly WorkflowStep[]
  /** Output name → runtime expression. */
  readonly outputs: Readonly<Record<string, string>>
  /** The document's `components` (for `$components.*` expressions). */
  readonly components?: JsonSchema
}

export interface SourceReport {
  readonly sourceId: string
  readonly kind: 'openapi' | 'arazzo' | 'remote' | 'unknown'
  /** e.g. "openapi 3.1.0", "swagger 2.0", "arazzo 1.0.1". */
  readonly format?: string
  /** `stale`: the file is broken now and its last good version serves (hot reload, SPEC §5). */
  readonly status: 'ok' | 'stale' | 'failed'
  readonly tools: number
  readonly errors: number
  readonly warnings: number
}

export interface Catalog {
  /** Content hash of services, tools, views and workflows: changes exactly when they change. */
  readonly version: string
  readonly services: readonly Service[]
  /** Sorted by tool ID; includes ignored tools (flagged), which no view lists. */
  readonly tools: readonly Tool[]
  readonly views: Readonly<Record<string, View>>
  readonly workflows: readonly Workflow[]
  readonly sources: readonly SourceReport[]
  readonly problems: readonly Problem[]
}
