import type { CatalogLimits } from './limits.js'
import type { Safety } from './types.js'

/** Per-service settings the catalog needs (the gateway's config adds upstreams and credentials). */
export interface ServiceOptions {
  /** The spec file (relative to the specs directory) this service id is given to. */
  readonly source?: string
  readonly alias?: string
  /** `false`: no output schemas for this service's tools (an upstream whose answers break its spec). */
  readonly outputSchemas?: boolean
  /** The configured base URL: it replaces every server of the spec, the operations' too. */
  readonly upstream?: string
  /** Origins besides the service's own that an operation's servers may name and still get its credentials. */
  readonly allowOrigins?: readonly string[]
  /** The configured credentials by scheme: checked against the spec's schemes (issue 45). */
  readonly credentials?: Readonly<Record<string, object>>
  /** Clients' own credentials for this service, by their configuration path: checked the same way. */
  readonly clientCredentials?: Readonly<Record<string, Readonly<Record<string, object>>>>
  /** The caller's token goes upstream exchanged (tokenExchange) or as it is (forwardCallerToken). */
  readonly callerToken?: 'exchanged' | 'forwarded'
}

/** An agent profile: one more view, selecting tools by service, group/tag, tool-ID pattern and safety. */
export interface ProfileOptions {
  readonly description?: string
  /** Service ids or aliases. */
  readonly services?: readonly string[]
  /** x-cli-group values (the first tag when absent). */
  readonly groups?: readonly string[]
  readonly tags?: readonly string[]
  /** Globs over tool IDs or wire names (`tickets:*`, `*_list_*`); a tool must match one. */
  readonly include?: readonly string[]
  readonly exclude?: readonly string[]
  /** Each flag given must equal the tool's (e.g. `{ readOnly: true }`, `{ destructive: false }`). */
  readonly safety?: Partial<Safety>
  /** Hidden tools are left out of every view unless a profile asks for them. */
  readonly includeHidden?: boolean
}

/** A policy: tools matching any glob get these safety settings (e.g. approval for all of billing). */
export interface PolicyRule {
  readonly tools: readonly string[]
  readonly requiresApproval?: boolean
  /** The policy itself grants approval (the executor lets these tools through without a per-call grant). */
  readonly approved?: boolean
}

export interface CatalogOptions {
  readonly services?: Readonly<Record<string, ServiceOptions>>
  readonly profiles?: Readonly<Record<string, ProfileOptions>>
  readonly policies?: readonly PolicyRule[]
  /** Named in problems about the configuration. */
  readonly configFile?: string
  /** Per file and per tool bounds; DEFAULT_CATALOG_LIMITS where absent. */
  readonly limits?: Partial<CatalogLimits>
}
