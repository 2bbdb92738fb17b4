import createError from '@fastify/error'

/**
 * Every error code the gateway answers with, in one place (STYLE: `TG_ERR_<AREA>_<WHAT>`, a
 * message that says the fix, the HTTP status). The body is always `{ error, code, … }`.
 */
export const errors = {
  notFound: createError(
    'TG_ERR_ROUTE_NOT_FOUND',
    'No route %s %s: see GET /documentation/json for the routes',
    404,
  ),
  profileUnknown: createError('TG_ERR_PROFILE_UNKNOWN', 'Unknown profile %s: use one of %s', 400),
  catalogNotLoaded: createError(
    'TG_ERR_CATALOG_NOT_LOADED',
    'The catalog is not loaded yet: retry shortly',
    503,
  ),
  internal: createError('TG_ERR_SERVER_INTERNAL', 'Internal server error', 500),
} as const

export type ErrorCode = ReturnType<(typeof errors)[keyof typeof errors]>['code']
