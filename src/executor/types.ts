import type { Tool } from '../catalog/types.js'

/** One call of one tool, as a protocol surface hands it to the executor. */
export interface ToolCall {
  readonly tool: Tool
  readonly arguments: Readonly<Record<string, unknown>>
  /** Aborted when the caller goes away: the upstream call is cancelled too. */
  readonly signal?: AbortSignal
  /** Opal's `auth.credentials.access_token`, forwarded when the service is configured so. */
  readonly accessToken?: string
  /** The approval the caller grants (X-Toolgate-Approval): the tool's wire name or ID. */
  readonly approval?: string
  readonly requestId?: string
  /**
   * The caller's client name (`anonymous` when unset): a 5xx answer or a timeout counts against
   * this client's own circuit for the tool, not against the upstream for everyone (issue 41 class 5).
   */
  readonly client?: string
  /**
   * The authenticated client's id, unset for an anonymous caller: its own upstream credentials
   * (`clients[].credentials`) replace the gateway's (issue 45).
   */
  readonly clientId?: string | undefined
  /** The caller's verified JWT (access layer), unset for a static token: what token exchange trades. */
  readonly callerJwt?: string | undefined
}

/** What the upstream answered, its body read and typed (SPEC §3 step 6). */
export type UpstreamBody =
  | { readonly type: 'empty' }
  /** JSON is kept as the upstream's bytes: relayed as is, parsed only by surfaces that need the value. */
  | { readonly type: 'json'; readonly bytes: Buffer; readonly contentType: string }
  | { readonly type: 'text'; readonly text: string; readonly contentType: string }
  | { readonly type: 'binary'; readonly base64: string; readonly contentType: string; readonly bytes: number }

export interface UpstreamAnswer {
  readonly kind: 'answer'
  readonly status: number
  readonly body: UpstreamBody
  /** The few upstream headers worth passing on (Location, Retry-After, ETag, Link). */
  readonly headers: Readonly<Record<string, string>>
  /** Every upstream header as undici gave it, for a workflow's `$response.header.*` expressions; never relayed. */
  readonly upstreamHeaders?: Readonly<Record<string, string | string[] | undefined>>
  readonly origin: string
  readonly attempts: number
}

/** The gateway's own refusal or failure: `{ error, code, … }` with its HTTP status. */
export interface Refusal {
  readonly kind: 'refusal'
  readonly status: number
  readonly body: { readonly error: string; readonly code: string; readonly [detail: string]: unknown }
  readonly headers: Readonly<Record<string, string>>
}

export type ToolOutcome = UpstreamAnswer | Refusal

/** One multipart part as a dry run shows it: a text field, or a file part with its bytes. */
export type PreviewPart =
  | { readonly name: string; readonly value: string }
  | {
      readonly name: string
      readonly filename: string
      readonly contentType: string
      readonly bytes: number
      /** The part's content when its type is JSON or text/*; otherwise `base64`. */
      readonly text?: string
      readonly base64?: string
    }

/** The body a dry run shows: typed, so a JSON string, a text body and no body stay apart. */
export type PreviewBody =
  | { readonly type: 'json'; readonly value: unknown }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'binary'; readonly bytes: number; readonly base64: string }
  | { readonly type: 'multipart'; readonly parts: readonly PreviewPart[] }

/** The upstream request a call would send (credentials `[redacted]`), as a dry run shows it. */
export interface RequestPreview {
  readonly method: string
  /** Origin, path and query exactly as sent: still percent-encoded. */
  readonly url: string
  /** The headers the gateway sets; undici adds only framing (host, content-length, multipart boundary). */
  readonly headers: Readonly<Record<string, string>>
  readonly body: PreviewBody | null
}

/**
 * Where a call's credential for one security scheme comes from (issue 45), never its value:
 * the gateway's configuration, the calling client's own, a token fetched with either's OAuth2
 * client (`owner` says whose), the caller's token exchanged (RFC 8693) or forwarded as it is
 * (`forwardCallerToken`) — for those two `scheme` is `*`: they replace every other credential.
 */
export interface CredentialSource {
  readonly scheme: string
  readonly source: 'gateway' | 'client' | 'fetched' | 'exchanged' | 'forwarded'
  /** `gateway`, or the id of the client whose credential it is. */
  readonly owner: string
}

/** A dry run's answer (issue 19): nothing was sent. */
export interface DryRun {
  readonly kind: 'dry-run'
  readonly request: RequestPreview
  /** The credentials the request carries, by scheme: their source, never their value. */
  readonly credentials: readonly CredentialSource[]
  /** Whether a real call of this tool needs an approval… */
  readonly approvalRequired: boolean
  /** …and whether this call (X-Toolgate-Approval) or a policy grants it. */
  readonly approved: boolean
  /** For a workflow tool: the request is its first step's; these are the steps and what may follow each. */
  readonly workflow?: WorkflowPlan
}

/** A workflow's steps as a dry run shows them (issue 47). */
export interface WorkflowPlan {
  readonly workflowId: string
  /** The step whose request `request` is (`<step>/<nested step>` when it is a nested workflow's). */
  readonly firstStep: string
  /** The steps that may run after the first: its goto, retry and next-in-order targets. */
  readonly mayFollow: readonly string[]
  readonly steps: readonly {
    readonly stepId: string
    /** The tool's wire name, or `workflow:<workflowId>`. */
    readonly tool: string
    /** Where each outcome may lead: step IDs, `workflow:<id>`, or `end`. */
    readonly onSuccess: readonly string[]
    readonly onFailure: readonly string[]
  }[]
}

export type DryRunOutcome = DryRun | Refusal

export interface Violation {
  /** JSON pointer into the arguments: `/limit`, `/customer/email`. */
  readonly path: string
  readonly message: string
}
