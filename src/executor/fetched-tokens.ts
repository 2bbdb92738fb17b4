import type { Tool } from '../catalog/types.js'
import { errors } from '../errors.js'
import type { TokenNeed, TokenProblem, UpstreamTokens } from '../identity/upstream-tokens.js'
import type { UpstreamRequest } from './build-request.js'
import type { Refusal } from './types.js'

/** A request with its fetched tokens in, and the tokens (a 401 replaces exactly these). */
export interface Authorized {
  readonly request: UpstreamRequest
  readonly tokens: readonly string[]
}

/**
 * Puts the call's fetched OAuth2 tokens into Authorization (issue 45). A token endpoint that
 * gives none refuses the call with 502 naming the endpoint: the upstream is not called, so its
 * circuit breaker never counts it. `replacing`: the tokens the upstream answered 401 to.
 */
export async function authorize(
  request: UpstreamRequest,
  needs: readonly TokenNeed[],
  tokens: UpstreamTokens | undefined,
  tool: Tool,
  replacing: readonly string[] = [],
): Promise<Authorized | Refusal> {
  if (!tokens)
    return tokenRefusal(tool, needs[0]!, {
      failure: 'unreachable',
      detail: 'no token client is configured',
      endpoint: needs[0]!.tokenUrl,
    })
  const fetched: string[] = []
  for (const [index, need] of needs.entries()) {
    const token = await tokens.token(need, replacing[index])
    if (typeof token !== 'string') return tokenRefusal(tool, need, token)
    fetched.push(token)
  }
  // Two oauth2 schemes in one alternative both write Authorization, as static ones do: the last wins.
  const authorization = `Bearer ${fetched.at(-1)}`
  return { request: { ...request, headers: { ...request.headers, authorization } }, tokens: fetched }
}

function tokenRefusal(tool: Tool, need: TokenNeed, problem: TokenProblem): Refusal {
  const { endpoint, detail } = problem
  const where = `services.${need.service}.credentials.${need.scheme}`
  const error =
    problem.failure === 'refused'
      ? new errors.upstreamTokenRefused(endpoint, where, detail)
      : problem.failure === 'invalid'
        ? new errors.upstreamTokenInvalid(endpoint, where, detail)
        : new errors.upstreamTokenUnreachable(endpoint, where, detail)
  return {
    kind: 'refusal',
    status: error.statusCode ?? 502,
    body: {
      error: error.message,
      code: error.code,
      tool: tool.wireName,
      tokenEndpoint: endpoint,
      ...(problem.oauthError ? { oauthError: problem.oauthError } : {}),
    },
    headers: {},
  }
}
