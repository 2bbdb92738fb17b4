/**
 * The JSON the page reads: /explorer/api/* as plugins/explorer.ts and src/explorer/describe-*.ts
 * answer it (the browser tests hold the two together).
 */

export interface ToolRow {
  readonly name: string
  readonly title: string
  readonly service: number
  readonly method: string
  readonly path: string
  readonly safety: 'read' | 'write' | 'destructive'
  readonly approval: boolean
  readonly deprecated?: true
  readonly hidden?: true
}

export interface ToolList {
  readonly catalogVersion: string
  readonly services: readonly { readonly id: string; readonly alias: string; readonly title: string }[]
  readonly profiles: readonly {
    readonly name: string
    readonly description?: string
    readonly tools: readonly number[]
  }[]
  readonly tools: readonly ToolRow[]
}

export interface Problem {
  readonly code: string
  readonly severity: 'error' | 'warning' | 'info'
  readonly pointer: string
  readonly message: string
}

export interface SourceOverview {
  readonly sourceId: string
  readonly kind: string
  readonly format?: string
  readonly status: 'ok' | 'stale' | 'failed'
  readonly tools: number
  readonly errors: number
  readonly warnings: number
  readonly services: readonly string[]
  readonly problems: readonly Problem[]
}

export interface IdList {
  readonly count: number
  readonly ids: readonly string[]
}

export interface ReloadOverview {
  readonly trigger: string
  readonly startedAt: string
  readonly durationMs: number
  readonly outcome: 'ok' | 'failed'
  readonly swapped: boolean
  readonly previousVersion: string
  readonly catalogVersion: string
  readonly stale: readonly string[]
  readonly failed: readonly string[]
  readonly error?: string
  readonly diff: { readonly added: IdList; readonly removed: IdList; readonly changed: IdList }
}

export interface Overview {
  readonly gateway: { readonly name: string; readonly version: string; readonly apiVersion: string }
  readonly catalogVersion: string
  readonly loadedAt: string
  readonly status: string
  readonly access: 'open' | 'closed' | 'clients'
  readonly counts: Readonly<
    Record<'services' | 'tools' | 'profiles' | 'workflows' | 'errors' | 'warnings', number>
  >
  readonly sources: readonly SourceOverview[]
  readonly reloads: readonly ReloadOverview[]
}

export interface ArgumentRow {
  readonly name: string
  readonly in: 'path' | 'query' | 'header' | 'cookie' | 'body'
  readonly wholeBody?: true
  readonly type: string
  readonly required: boolean
  readonly description?: string
  readonly renamedFrom?: string
  readonly deprecated?: true
}

export interface Rendering {
  readonly format: string
  readonly label: string
  readonly bytes: number
  readonly tokens: number
  readonly definition: unknown
}

export interface Violation {
  readonly path: string
  readonly message: string
}

export interface ToolPage {
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
    readonly remote?: { readonly protocol: string; readonly name: string }
  }
  readonly tags: readonly string[]
  readonly deprecated: boolean
  readonly hidden: boolean
  readonly safety: {
    readonly readOnly: boolean
    readonly destructive: boolean
    readonly idempotent: boolean
    readonly openWorld: boolean
    readonly requiresApproval: boolean
  }
  readonly price?: string
  readonly auth: readonly (readonly string[])[]
  /** Where the service's configured credentials come from (never their values). */
  readonly credentialSources: readonly {
    readonly scheme: string
    readonly source: 'gateway' | 'client' | 'fetched' | 'exchanged' | 'forwarded'
    readonly owner: string
  }[]
  readonly bodyContentType?: string
  readonly profiles: readonly string[]
  readonly arguments: readonly ArgumentRow[]
  readonly inputSchema: Record<string, unknown>
  /** A workflow tool's steps, in order. */
  readonly workflow?: {
    readonly id: string
    readonly steps: readonly {
      readonly stepId: string
      readonly toolId?: string
      readonly workflowId?: string
      readonly description?: string
      readonly requiresApproval: boolean
    }[]
  }
  readonly example: Record<string, unknown>
  readonly exampleValid: boolean
  readonly exampleViolations?: readonly Violation[]
  readonly renderings: readonly Rendering[]
}

export interface SearchAnswer {
  readonly query: string
  readonly tools: readonly { readonly name: string; readonly score: number }[]
}

export interface Size {
  readonly bytes: number
  readonly tools: number
  readonly tokens?: number
  readonly tokensEstimated?: true
}

export interface Budgets {
  readonly catalogVersion: string
  readonly formats: { readonly full: readonly string[]; readonly deferred: readonly string[] }
  readonly profiles: readonly { readonly name: string; readonly sizes: Readonly<Record<string, Size>> }[]
}
