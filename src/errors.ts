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
  toolArgumentsInvalid: createError(
    'TG_ERR_TOOL_ARGUMENTS_INVALID',
    'Invalid arguments for tool %s: fix every violation listed and call again',
    400,
  ),
  toolCallUnauthorized: createError(
    'TG_ERR_TOOL_CALL_UNAUTHORIZED',
    'Tool calls need the configured bearer token: send Authorization: Bearer <token>',
    401,
  ),
  toolApprovalRequired: createError(
    'TG_ERR_TOOL_APPROVAL_REQUIRED',
    'Tool %s requires approval: once a person approved it, repeat the call with the header X-Toolgate-Approval: %s, or grant it with a policy (policies: [{ tools: [...], approved: true }])',
    403,
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
  upstreamResponseTooLarge: createError(
    'TG_ERR_UPSTREAM_RESPONSE_TOO_LARGE',
    'Upstream %s answered tool %s with more than %d bytes: narrow the request',
    502,
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
  internal: createError('TG_ERR_SERVER_INTERNAL', 'Internal server error', 500),
} as const

export type ErrorCode = ReturnType<(typeof errors)[keyof typeof errors]>['code']
