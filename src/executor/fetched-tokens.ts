import type { Service, Tool } from '../catalog/types.js'
import type { ServiceCredentials, TokenExchanges } from '../config/secrets.js'
import { errors } from '../errors.js'
import type { TokenNeed, TokenProblem, UpstreamTokens } from '../identity/upstream-tokens.js'
import type { UpstreamRequest } from './build-request.js'
import { tokenNeeds } from './inject-credentials.js'
import { refusal } from './refusal.js'
import type { Refusal } from './types.js'

/** One token a call needs before it is sent: fetched (client credentials) or exchanged (RFC 8693). */
export interface PendingToken {
  /** The configuration that names its client: `services.<id>.credentials.<scheme>` or `services.<id>.tokenExchange`. */
  readonly where: string
  readonly exchange: boolean
  /** The token, from the cache or the endpoint; `replacing` is one the upstream answered 401 to. */
  get(replacing?: string): Promise<string | TokenProblem>
}

/** What decides a call's tokens. */
export interface TokenContext {
  readonly tool: Tool
  readonly service: Service
  /** The credentials the request carries, and whose they are (`gateway` or a client id). */
  readonly credentials: ServiceCredentials
  readonly owner: string
  /** The service's token exchange, when the call goes to its own origin. */
  readonly exchange: TokenExchanges[string] | undefined
  readonly callerJwt: string | undefined
  readonly tokens: UpstreamTokens | undefined
}

/**
 * The tokens a call needs before it is sent: the caller's exchanged (it replaces every other
 * credential), else those of its OAuth2 client credentials. Without a token client (an executor
 * built without one) each is a failure, never a call sent without its credential.
 */
export function pendingTokens(context: TokenContext): PendingToken[] {
  const { tool, service, exchange, callerJwt, tokens } = context
  if (exchange && callerJwt !== undefined) {
    const need = {
      service: service.id,
      client: exchange,
      subjectToken: callerJwt,
      scopes: exchange.scopes ?? tool.auth[0]?.schemes.flatMap((scheme) => scheme.scopes) ?? [],
    }
    return [
      {
        where: `services.${service.id}.tokenExchange`,
        exchange: true,
        get: (replacing) => tokens?.exchange(need, replacing) ?? noTokenClient(exchange.tokenUrl),
      },
    ]
  }
  return tokenNeeds(tool, service, context.credentials, context.owner).map((need) => ({
    where: credentialPath(need),
    exchange: false,
    get: (replacing) => tokens?.token(need, replacing) ?? noTokenClient(need.tokenUrl),
  }))
}

function credentialPath({ owner, service, scheme }: TokenNeed): string {
  return owner === 'gateway'
    ? `services.${service}.credentials.${scheme}`
    : `clients (${owner}).credentials.${service}.${scheme}`
}

async function noTokenClient(endpoint: string): Promise<TokenProblem> {
  return { failure: 'unreachable', detail: 'the executor has no token client', endpoint }
}

/** A request with its tokens in, and the tokens (a 401 replaces exactly these). */
export interface Authorized {
  readonly request: UpstreamRequest
  readonly tokens: readonly string[]
}

/**
 * Puts the call's fetched or exchanged tokens into Authorization (issue 45). An endpoint that
 * gives none refuses the call naming the endpoint: 403 with the identity provider's `error` when
 * it refused an exchange, else 502. The upstream is not called, so its circuit breaker never
 * counts a token endpoint's failure.
 */
export async function authorize(
  request: UpstreamRequest,
  pending: readonly PendingToken[],
  tool: Tool,
  replacing: readonly string[] = [],
): Promise<Authorized | Refusal> {
  const tokens: string[] = []
  for (const [index, token] of pending.entries()) {
    const answer = await token.get(replacing[index])
    if (typeof answer !== 'string') return tokenRefusal(tool, token, answer)
    tokens.push(answer)
  }
  // Two oauth2 schemes in one alternative both write Authorization, as static ones do: the last wins.
  const authorization = `Bearer ${tokens.at(-1)}`
  return { request: { ...request, headers: { ...request.headers, authorization } }, tokens }
}

function tokenRefusal(tool: Tool, token: PendingToken, problem: TokenProblem): Refusal {
  const { endpoint, detail } = problem
  const error =
    problem.failure === 'refused'
      ? token.exchange
        ? new errors.upstreamExchangeRefused(endpoint, token.where, detail)
        : new errors.upstreamTokenRefused(endpoint, token.where, detail)
      : problem.failure === 'invalid'
        ? new errors.upstreamTokenInvalid(endpoint, token.where, detail)
        : new errors.upstreamTokenUnreachable(endpoint, token.where, detail)
  return refusal(error, tool, {
    tokenEndpoint: endpoint,
    ...(problem.oauthError ? { oauthError: problem.oauthError } : {}),
  })
}
