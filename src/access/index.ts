export {
  type Authentication,
  type Authenticator,
  createAuthenticator,
  MAX_TOKEN_LENGTH,
} from './authenticate.js'
export { type ClientScope, scopeOf } from './client-scope.js'
export { isKnownHost, isNamedOrigin, isOriginAllowed } from './origin.js'
export { bearerChallenge, protectedResourceMetadata, requiredScopes } from './protected-resource.js'
export type { AccessConfig, AccessMode, Caller, Client, RateLimit, RefusalReason } from './types.js'
