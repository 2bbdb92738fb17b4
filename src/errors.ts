import createError from '@fastify/error'

/**
 * Every error code the gateway answers with, in one place (STYLE: `TG_ERR_<AREA>_<WHAT>`, a
 * message that says the fix, the HTTP status). The body is always `{ error, code, … }`.
 * This module imports no framework: the executor core builds its refusals from it too.
 */
export const errors = {
  notFound: createError(
    'TG_ERR_ROUTE_NOT_FOUND',
    'No route %s %s: see GET /documentation/json for the routes',
    404,
  ),
  profileUnknown: createError('TG_ERR_PROFILE_UNKNOWN', 'Unknown profile %s: use one of %s', 400),
  searchQueryEmpty: createError(
    'TG_ERR_SEARCH_QUERY_EMPTY',
    'The search query is empty: pass the task in words, e.g. ?q=refund+a+charge',
    400,
  ),
  serviceUnknown: createError(
    'TG_ERR_SERVICE_UNKNOWN',
    'Unknown service %s: use one of %s (as <name>.json)',
    404,
  ),
  toolNotFound: createError('TG_ERR_TOOL_NOT_FOUND', 'No tool %s: GET /discovery lists the tools', 404),
  toolBodyInvalid: createError(
    'TG_ERR_TOOL_BODY_INVALID',
    'The request body must be a JSON object of arguments, or { "parameters": { … } } as Opal sends it',
    400,
  ),
  toolDryRunInvalid: createError(
    'TG_ERR_TOOL_DRY_RUN_INVALID',
    'The dryRun query parameter must be true or false (1 or 0): ?dryRun=true shows the upstream request without sending it',
    400,
  ),
  toolArgumentsInvalid: createError(
    'TG_ERR_TOOL_ARGUMENTS_INVALID',
    'Invalid arguments for tool %s: fix every violation listed and call again',
    400,
  ),
  toolApprovalRequired: createError(
    'TG_ERR_TOOL_APPROVAL_REQUIRED',
    'Tool %s requires approval: once a person approved it, repeat the call with the header X-Toolgate-Approval: %s, or grant it with a policy (policies: [{ tools: [...], approved: true }])',
    403,
  ),
  workflowApprovalRequired: createError(
    'TG_ERR_WORKFLOW_APPROVAL_REQUIRED',
    'Workflow %s has steps that require approval (%s): once a person approved the run, repeat the call with the header X-Toolgate-Approval: %s',
    403,
  ),
  workflowStepFailed: createError(
    'TG_ERR_WORKFLOW_STEP_FAILED',
    'Workflow %s stopped: step %s failed (%s); the steps run before it are in trace, their side effects in sideEffects (nothing was rolled back)',
    502,
  ),
  workflowRunInvalid: createError('TG_ERR_WORKFLOW_RUN_INVALID', 'Workflow %s stopped at step %s: %s', 422),
  workflowStepLimit: createError(
    'TG_ERR_WORKFLOW_STEP_LIMIT',
    'Workflow %s stopped after %s steps: its goto and retry actions loop; the steps run are in trace',
    508,
  ),
  workflowDeadline: createError(
    'TG_ERR_WORKFLOW_DEADLINE',
    'Workflow %s ran out of its %s ms deadline at step %s; the steps run are in trace',
    504,
  ),
  upstreamUnconfigured: createError(
    'TG_ERR_UPSTREAM_UNCONFIGURED',
    'Service %s has no absolute upstream URL: set services.%s.upstream in the configuration',
    502,
  ),
  upstreamUnreachable: createError(
    'TG_ERR_UPSTREAM_UNREACHABLE',
    'Upstream %s for tool %s is unreachable: %s',
    502,
  ),
  upstreamTimeout: createError(
    'TG_ERR_UPSTREAM_TIMEOUT',
    'Upstream %s for tool %s did not answer in time: %s',
    504,
  ),
  upstreamCircuitOpen: createError(
    'TG_ERR_UPSTREAM_CIRCUIT_OPEN',
    'Upstream %s is failing; calls are paused for %d s: retry after that',
    503,
  ),
  /** One caller's circuit (issue 41 class 5): other tools and clients of the upstream still go. */
  upstreamCallerCircuitOpen: createError(
    'TG_ERR_UPSTREAM_TOOL_PAUSED',
    'Upstream %s kept failing tool %s for this client (502/503/504 answers or timeouts); its calls are paused for %d s: retry after that. Other tools and clients are not paused',
    503,
  ),
  upstreamRequestUnsendable: createError(
    'TG_ERR_UPSTREAM_REQUEST_UNSENDABLE',
    'The request for tool %s cannot be sent: %s. The spec or the gateway configuration makes it: fix them',
    500,
  ),
  upstreamResponseInvalid: createError(
    'TG_ERR_UPSTREAM_RESPONSE_INVALID',
    'Upstream %s answered tool %s with a response the gateway cannot relay: %s',
    502,
  ),
  upstreamResponseTooLarge: createError(
    'TG_ERR_UPSTREAM_RESPONSE_TOO_LARGE',
    'Upstream %s answered tool %s with more than %d bytes: narrow the request',
    502,
  ),
  /** The token endpoint of an oauth2 scheme (issue 45): its failures are not the upstream's, nor its breaker's. */
  upstreamTokenUnreachable: createError(
    'TG_ERR_UPSTREAM_TOKEN_UNREACHABLE',
    'The token endpoint %s for %s gave no token: %s. The upstream was not called',
    502,
  ),
  upstreamTokenRefused: createError(
    'TG_ERR_UPSTREAM_TOKEN_REFUSED',
    'The token endpoint %s refused the client of %s: %s. Check that client, its secret and its scopes',
    502,
  ),
  upstreamTokenInvalid: createError(
    'TG_ERR_UPSTREAM_TOKEN_INVALID',
    'The token endpoint %s for %s answered with no usable token: %s. The upstream was not called',
    502,
  ),
  /** RFC 8693: the identity provider would not trade the caller's token; its `error` is passed on. */
  upstreamExchangeRefused: createError(
    'TG_ERR_UPSTREAM_EXCHANGE_REFUSED',
    "The identity provider %s would not exchange the caller's token for %s: %s",
    403,
  ),
  upstreamCallerTokenMissing: createError(
    'TG_ERR_UPSTREAM_CALLER_TOKEN_MISSING',
    "Service %s calls its API as the caller, which needs the caller's verified JWT: authenticate with a JWT (clients[].jwt), not %s",
    401,
  ),
  upstreamClientCredentialsRequired: createError(
    'TG_ERR_UPSTREAM_CLIENT_CREDENTIALS_REQUIRED',
    "Service %s sends only each client's own credentials, and caller %s has none for it: add clients[].credentials.%s to that client",
    403,
  ),
  remoteAuthFailed: createError(
    'TG_ERR_REMOTE_AUTH_FAILED',
    'The remote source refused the call of %s: %s. Check remoteSources[].token and its scopes',
    401,
  ),
  remoteMethodNotFound: createError(
    'TG_ERR_REMOTE_METHOD_NOT_FOUND',
    'The remote source has no method for %s (%s): it may be hidden from this token; reload the catalog',
    404,
  ),
  remoteError: createError(
    'TG_ERR_REMOTE_ERROR',
    'The remote source failed %s with JSON-RPC error %d: %s',
    502,
  ),
  accessTokenMissing: createError(
    'TG_ERR_ACCESS_TOKEN_MISSING',
    'This route needs a client token: send Authorization: Bearer <token> (docs/security.md; toolgate token new makes one)',
    401,
  ),
  accessTokenInvalid: createError('TG_ERR_ACCESS_TOKEN_INVALID', 'The bearer token was refused: %s', 401),
  accessKeysUnavailable: createError(
    'TG_ERR_ACCESS_KEYS_UNAVAILABLE',
    "The token cannot be verified now, so it is refused (the gateway fails closed): the issuer's keys are unavailable: %s",
    401,
  ),
  accessClientUnknown: createError(
    'TG_ERR_ACCESS_CLIENT_UNKNOWN',
    'The token is valid but %s: add the client under clients: or fix jwt.claim / jwt.value',
    403,
  ),
  accessScopeInsufficient: createError(
    'TG_ERR_ACCESS_SCOPE_INSUFFICIENT',
    'The token lacks a scope this client needs: %s. Request a token with these scopes',
    403,
  ),
  accessToolNotAllowed: createError(
    'TG_ERR_ACCESS_TOOL_NOT_ALLOWED',
    'Client %s may not call tool %s: its clients[].tools and profiles decide what it may call',
    403,
  ),
  accessApprovalNotAllowed: createError(
    'TG_ERR_ACCESS_APPROVAL_NOT_ALLOWED',
    "Client %s may not approve tool %s: list it under the client's approve, or call without X-Toolgate-Approval",
    403,
  ),
  accessOperatorOnly: createError(
    'TG_ERR_ACCESS_OPERATOR_ONLY',
    'Client %s may not read the operator routes: give it operator: true',
    403,
  ),
  accessSessionsNotAllowed: createError(
    'TG_ERR_ACCESS_SESSIONS_NOT_ALLOWED',
    'Client %s may not create sessions: give it sessions: true under clients:',
    403,
  ),
  accessProfileNotAllowed: createError(
    'TG_ERR_ACCESS_PROFILE_NOT_ALLOWED',
    'Client %s may not use profile %s: use one of %s',
    403,
  ),
  accessClosed: createError(
    'TG_ERR_ACCESS_CLOSED',
    'No clients are configured and NODE_ENV is production, so tool calls, MCP, session creation and the operator routes are closed: add clients: to TOOLGATE_CONFIG (toolgate token new; sessions: true lets a client create sessions) or set access: open',
    403,
  ),
  accessHostRefused: createError(
    'TG_ERR_ACCESS_HOST_REFUSED',
    'Host %s is not a name of this gateway: in open mode the operator routes answer only localhost, an IP address, or the host of publicUrl or allowedOrigins, so that no web page whose domain is pointed at this address can read them. Set publicUrl to the URL you reach the gateway by',
    403,
  ),
  accessOriginRefused: createError(
    'TG_ERR_ACCESS_ORIGIN_REFUSED',
    "Origin %s may not call this gateway: add it to allowedOrigins (or set publicUrl for the gateway's own origin)",
    403,
  ),
  accessRateLimited: createError(
    'TG_ERR_ACCESS_RATE_LIMITED',
    'Rate limit exceeded for %s (%s): retry in %d s',
    429,
  ),
  requestBodyInvalid: createError('TG_ERR_REQUEST_BODY_INVALID', 'The request body was refused: %s', 400),
  requestBodyTooLarge: createError(
    'TG_ERR_REQUEST_BODY_TOO_LARGE',
    'The request body is larger than %s bytes (BODY_LIMIT)',
    413,
  ),
  requestUrlInvalid: createError(
    'TG_ERR_REQUEST_URL_INVALID',
    'The request URL is not valid: a path segment has a malformed percent-encoding',
    400,
  ),
  requestUrlTooLong: createError(
    'TG_ERR_REQUEST_URL_TOO_LONG',
    'A path segment of the request URL is longer than %s characters',
    414,
  ),
  requestHeaderTooLong: createError(
    'TG_ERR_REQUEST_HEADER_TOO_LONG',
    'The %s header is longer than %s characters: %s',
    400,
  ),
  internal: createError('TG_ERR_SERVER_INTERNAL', 'Internal server error', 500),
} as const

export type ErrorCode = ReturnType<(typeof errors)[keyof typeof errors]>['code']
