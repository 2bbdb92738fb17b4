export { createRedisTokenStore } from './redis-token-store.js'
export { createTokenCache, type SharedTokenStore, type TokenCache } from './token-cache.js'
export { fetchToken, type IssuedToken, type TokenFailure } from './token-endpoint.js'
export {
  createUpstreamTokens,
  type ExchangeNeed,
  endpointOf,
  type TokenNeed,
  type TokenProblem,
  type TokenRequestRecord,
  type UpstreamTokens,
} from './upstream-tokens.js'
