import type { PolicyRule } from '../catalog/options.js'
import type { RetryPolicy, Service, Tool } from '../catalog/types.js'
import {
  type ClientCredentials,
  REDACTED,
  type ServiceCredentials,
  type TokenExchanges,
} from '../config/secrets.js'
import { errors } from '../errors.js'
import type { UpstreamTokens } from '../identity/upstream-tokens.js'
import { globToRegExp, matchesAnyGlob } from '../util/glob.js'
import { buildRequest, resolveBaseUrl, serviceOrigin, type UpstreamRequest } from './build-request.js'
import { checkArgumentValues, DEFAULT_ARGUMENT_DEPTH } from './check-argument-values.js'
import { authorize, pendingTokens } from './fetched-tokens.js'
import { credentialSources } from './inject-credentials.js'
import { asJsonRpcRequest, fromJsonRpcResponse } from './jsonrpc.js'
import { previewRequest } from './preview-request.js'
import { typeBody } from './read-response.js'
import { refusal } from './refusal.js'
import type { DryRunOutcome, Refusal, ToolCall, ToolOutcome, UpstreamBody, Violation } from './types.js'
import type { Failure, RawResponse, UpstreamClient } from './upstream-client.js'
import type { ArgumentValidator } from './validate-arguments.js'

/** Idempotent tools without x-cli-retry get one retry when nothing was sent or the connection reset. */
export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 2_000 }

/** Upstream headers a caller may need: where a created resource is, when to retry, pagination. */
const PASSED_HEADERS = ['location', 'retry-after', 'etag', 'last-modified', 'link'] as const

export interface ServiceSettings {
  readonly upstream?: string
  readonly timeoutMs?: number
  readonly forwardAccessToken?: boolean
  /** `services.<id>.allowOrigins`, as origins: besides its own, where its credentials may go. */
  readonly allowOrigins?: readonly string[]
  /** `services.<id>.requireClientCredentials`: a caller without its own credentials is refused. */
  readonly requireClientCredentials?: boolean
  /** `services.<id>.forwardCallerToken`: the caller's verified JWT goes upstream as it is (same audience only). */
  readonly forwardCallerToken?: boolean
}

/** What a call to a foreign origin carries: no service's credentials. */
const NO_CREDENTIALS: ServiceCredentials = Object.freeze({})

export interface ExecutorDeps {
  readonly client: UpstreamClient
  readonly credentials: ServiceCredentials
  /** Each client's own credentials (`clients[].credentials`): for its calls they replace the gateway's. */
  readonly clientCredentials?: ClientCredentials
  readonly services: Readonly<Record<string, ServiceSettings>>
  readonly policies: readonly PolicyRule[]
  readonly userAgent: string
  /** How deep arguments may nest (limits.argumentDepth); DEFAULT_ARGUMENT_DEPTH when unset. */
  readonly argumentDepth?: number
  /** Told about every upstream call once it ends (metrics). */
  readonly observe?: (call: UpstreamCallRecord) => void
  /** Fetches the tokens of OAuth2 client-credentials schemes and exchanges callers' tokens (issue 45). */
  readonly tokens?: UpstreamTokens
  /** `services.<id>.tokenExchange`: the OAuth2 client that exchanges the caller's JWT for the upstream. */
  readonly tokenExchanges?: TokenExchanges
}

/** One upstream call as the metrics see it. */
export interface UpstreamCallRecord {
  readonly service: string
  /** The upstream's HTTP status, or why there was none. */
  readonly result: number | Failure['failure']
  readonly durationSeconds: number
}

/** What one catalog version contributes to a call. */
export interface ExecutionScope {
  readonly service: Service
  readonly validator: ArgumentValidator
}

export interface Executor {
  execute(call: ToolCall, scope: ExecutionScope): Promise<ToolOutcome>
  /**
   * The request `execute` would send for this call, credentials shown as `[redacted]`, sent
   * nowhere (issue 19): the same validation, base URL, request building and JSON-RPC envelope.
   */
  dryRun(call: ToolCall, scope: ExecutionScope): Promise<DryRunOutcome>
}

/** A call made ready to send: validated, built, credentials in, approval decided. */
interface Prepared {
  readonly request: UpstreamRequest
  /** The credentials the request carries: none when it leaves the service's origin. */
  readonly credentials: ServiceCredentials
  /** Whose they are: `gateway`, or the calling client's id. */
  readonly owner: string
  /** The caller's JWT is traded for the upstream (RFC 8693) on the way out. */
  readonly exchanges: boolean
  readonly settings: ServiceSettings
  readonly approved: boolean
  readonly jsonrpc: boolean
}

/**
 * The six steps of SPEC §3: validate, build, inject credentials, approve, send, answer. Validation
 * starts with the values no validator or encoder can take (check-argument-values.ts), so every
 * surface — REST, Opal, MCP — refuses them the same way, as 400 naming the argument.
 */
export function createExecutor(deps: ExecutorDeps): Executor {
  const approvedGlobs = deps.policies.filter((p) => p.approved).flatMap((p) => p.tools.map(globToRegExp))
  const argumentDepth = deps.argumentDepth ?? DEFAULT_ARGUMENT_DEPTH
  const grantedByPolicy = (tool: Tool) =>
    matchesAnyGlob(tool.id, approvedGlobs) || matchesAnyGlob(tool.wireName, approvedGlobs)

  /** Steps 1–3 and the approval decision, shared by a call and its dry run: one code path. */
  const prepare = (
    call: ToolCall,
    { service, validator }: ExecutionScope,
    redactCredentials: boolean,
  ): Prepared | Refusal => {
    const { tool } = call
    const unusable = checkArgumentValues(call.arguments, argumentDepth)
    if (unusable.length > 0) return invalidArguments(tool, unusable)
    const checked = validator.check(tool, call.arguments)
    if (!checked.ok) return invalidArguments(tool, checked.violations)
    const settings = deps.services[service.id] ?? {}
    const baseUrl = resolveBaseUrl(tool, service, settings.upstream)
    if (!baseUrl) return refusal(new errors.upstreamUnconfigured(service.id, service.id), tool)
    // A path's or operation's servers may leave the service's origin: its credentials (and a
    // forwarded token) go only where the operator said they may (issue 41 class 8).
    const trusted =
      baseUrl.origin === serviceOrigin(tool, service, settings.upstream) ||
      (settings.allowOrigins?.includes(baseUrl.origin) ?? false)
    // A client's own credentials for the service replace all of the gateway's: never a mix.
    const own = call.clientId !== undefined ? deps.clientCredentials?.[call.clientId] : undefined
    const owned = own?.[service.id] !== undefined
    if (!owned && settings.requireClientCredentials)
      return refusal(
        new errors.upstreamClientCredentialsRequired(service.id, call.clientId ?? 'anonymous', service.id),
        tool,
      )
    const credentials = !trusted ? NO_CREDENTIALS : owned ? own! : deps.credentials
    const asCaller = deps.tokenExchanges?.[service.id] !== undefined || settings.forwardCallerToken === true
    if (asCaller && call.callerJwt === undefined)
      return refusal(
        new errors.upstreamCallerTokenMissing(
          service.id,
          call.clientId === undefined ? 'anonymously' : 'with a static token',
        ),
        tool,
      )
    const built = buildRequest(tool, checked.arguments, {
      service,
      baseUrl,
      credentials,
      userAgent: deps.userAgent,
      redactCredentials,
      bearerOverride:
        (trusted &&
          ((settings.forwardAccessToken && call.accessToken) ||
            (settings.forwardCallerToken && call.callerJwt))) ||
        undefined,
      requestId: call.requestId,
    })
    if (!built.ok) return invalidArguments(tool, built.violations)
    const approved = call.approval === tool.wireName || call.approval === tool.id || grantedByPolicy(tool)
    const jsonrpc = tool.remote?.protocol === 'jsonrpc'
    const request = jsonrpc ? asJsonRpcRequest(built.request, tool.remote!.name) : built.request
    const exchanges = trusted && deps.tokenExchanges?.[service.id] !== undefined
    return {
      request,
      credentials,
      owner: owned ? call.clientId! : 'gateway',
      exchanges,
      settings,
      approved,
      jsonrpc,
    }
  }

  const send = async (
    request: UpstreamRequest,
    call: ToolCall,
    scope: ExecutionScope,
    settings: ServiceSettings,
  ) => {
    const { tool } = call
    const started = performance.now()
    const result = await deps.client.send(request, {
      idempotent: tool.safety.idempotent,
      retry: tool.retry ?? DEFAULT_RETRY,
      timeoutMs: settings.timeoutMs || undefined,
      signal: call.signal,
      caller: { tool: tool.id, client: call.client ?? 'anonymous' },
      urlTemplate: tool.path,
    })
    deps.observe?.({
      service: scope.service.id,
      result: 'failure' in result ? result.failure : result.status,
      durationSeconds: (performance.now() - started) / 1000,
    })
    return result
  }

  /**
   * Sends with the call's fetched tokens (issue 45). A 401 to them refreshes them once; an
   * idempotent tool is then sent once more, any other answers the 401 (its next call gets the
   * new token).
   */
  const sendAuthorized = async (
    prepared: Prepared,
    call: ToolCall,
    scope: ExecutionScope,
  ): Promise<RawResponse | Failure | Refusal> => {
    const pending = pendingTokens({
      tool: call.tool,
      service: scope.service,
      credentials: prepared.credentials,
      owner: prepared.owner,
      exchange: prepared.exchanges ? deps.tokenExchanges?.[scope.service.id] : undefined,
      callerJwt: call.callerJwt,
      tokens: deps.tokens,
    })
    if (pending.length === 0) return send(prepared.request, call, scope, prepared.settings)
    const first = await authorize(prepared.request, pending, call.tool)
    if ('kind' in first) return first
    const result = await send(first.request, call, scope, prepared.settings)
    if ('failure' in result || result.status !== 401) return result
    const renewed = await authorize(prepared.request, pending, call.tool, first.tokens)
    if ('kind' in renewed || !call.tool.safety.idempotent) return result
    return send(renewed.request, call, scope, prepared.settings)
  }

  return {
    async execute(call, scope) {
      const { tool } = call
      const prepared = prepare(call, scope, false)
      if ('kind' in prepared) return prepared
      const { request, jsonrpc } = prepared
      if (tool.safety.requiresApproval && !prepared.approved) {
        return refusal(new errors.toolApprovalRequired(tool.wireName, tool.wireName), tool)
      }
      const result = await sendAuthorized(prepared, call, scope)
      if ('kind' in result) return result
      if ('failure' in result) return failed(result, tool, request.origin)
      return (jsonrpc && fromJsonRpcResponse(result, tool, request)) || answered(result, request.origin)
    },

    // Nothing is sent, so a tool that needs approval is shown, not refused: the answer says
    // whether a real call would need the approval and whether this one carried it.
    async dryRun(call, scope) {
      const prepared = prepare(call, scope, true)
      if ('kind' in prepared) return prepared
      const asCaller = prepared.exchanges
        ? 'exchanged'
        : prepared.settings.forwardCallerToken
          ? 'forwarded'
          : undefined
      // The exchanged token is fetched only when the call is sent; the dry run shows where it goes.
      const request = prepared.exchanges
        ? {
            ...prepared.request,
            headers: { ...prepared.request.headers, authorization: `Bearer ${REDACTED}` },
          }
        : prepared.request
      return {
        kind: 'dry-run',
        request: await previewRequest(request),
        credentials: asCaller
          ? [{ scheme: '*', source: asCaller, owner: call.clientId ?? 'anonymous' }]
          : credentialSources(call.tool, scope.service, prepared.credentials, prepared.owner),
        approvalRequired: call.tool.safety.requiresApproval,
        approved: prepared.approved,
      }
    },
  }
}

function answered(response: RawResponse, origin: string): ToolOutcome {
  const contentType = header(response.headers['content-type'])
  const headers: Record<string, string> = {}
  for (const name of PASSED_HEADERS) {
    const value = header(response.headers[name])
    if (value !== undefined) headers[name] = value
  }
  const body = typeBody(response.bytes, contentType, response.status)
  const { status, attempts } = response
  if (status >= 300 && status < 400) return redirectAsData(status, body, headers, origin, attempts)
  // Every header, as received (read only by a workflow's expressions): a reference, not a copy per call.
  return { kind: 'answer', status, body, headers, upstreamHeaders: response.headers, origin, attempts }
}

/**
 * A 3xx is the upstream's answer, not the gateway's (issue 41 class 6): relayed as a 200 whose
 * JSON says so — `{ upstreamStatus, location, body }` — with no Location header, so no client
 * follows it from the gateway's origin and no cache takes a 304 for the caller's own copy.
 */
function redirectAsData(
  status: number,
  body: UpstreamBody,
  { location, ...headers }: Record<string, string>,
  origin: string,
  attempts: number,
): ToolOutcome {
  const head = `{"upstreamStatus":${status},"location":${JSON.stringify(location ?? null)},"body":`
  // A JSON body is spliced in as its (checked) bytes: relayed byte for byte, as a 2xx's is.
  const inner = body.type === 'json' ? body.bytes : Buffer.from(JSON.stringify(bodyAsData(body)))
  return {
    kind: 'answer',
    status: 200,
    body: {
      type: 'json',
      bytes: Buffer.concat([Buffer.from(head), inner, Buffer.from('}')]),
      contentType: 'application/json',
    },
    headers,
    origin,
    attempts,
  }
}

/** A non-JSON body as data: null, `{ contentType, text }`, or base64 as binary answers are. */
function bodyAsData(body: Exclude<UpstreamBody, { type: 'json' }>): unknown {
  switch (body.type) {
    case 'empty':
      return null
    case 'text':
      return { contentType: body.contentType, text: body.text }
    case 'binary':
      return { contentType: body.contentType, encoding: 'base64', bytes: body.bytes, data: body.base64 }
  }
}

function failed(failure: Failure, tool: Tool, origin: string): ToolOutcome {
  switch (failure.failure) {
    case 'circuit-open': {
      const seconds = Math.max(1, Math.ceil(failure.retryAfterMs / 1000))
      return refusal(
        failure.circuit === 'caller'
          ? new errors.upstreamCallerCircuitOpen(origin, tool.wireName, seconds)
          : new errors.upstreamCircuitOpen(origin, seconds),
        tool,
        { upstream: origin },
        { 'retry-after': String(seconds) },
      )
    }
    case 'timeout':
      return refusal(new errors.upstreamTimeout(origin, tool.wireName, failure.detail), tool, {
        upstream: origin,
        attempts: failure.attempts,
      })
    case 'too-large':
      return refusal(new errors.upstreamResponseTooLarge(origin, tool.wireName, failure.limit), tool, {
        upstream: origin,
      })
    case 'aborted':
      return refusal(new errors.upstreamUnreachable(origin, tool.wireName, 'the call was cancelled'), tool, {
        upstream: origin,
      })
    case 'unsendable':
      return refusal(new errors.upstreamRequestUnsendable(tool.wireName, failure.detail), tool, {
        upstream: origin,
      })
    case 'invalid':
      return refusal(new errors.upstreamResponseInvalid(origin, tool.wireName, failure.detail), tool, {
        upstream: origin,
        upstreamStatus: failure.status,
      })
    case 'unreachable':
      return refusal(new errors.upstreamUnreachable(origin, tool.wireName, failure.detail), tool, {
        upstream: origin,
        attempts: failure.attempts,
      })
  }
}

/** The refusal of a call whose arguments break these rules: 400 listing every violation. */
export function invalidArguments(tool: Tool, violations: readonly Violation[]): Refusal {
  return refusal(new errors.toolArgumentsInvalid(tool.wireName), tool, { violations })
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}
