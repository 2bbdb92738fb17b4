import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { createRemoteJWKSet, exportJWK, generateKeyPair, type JWTPayload, jwtVerify } from 'jose'
import Provider, { type ClientMetadata, errors as oidcErrors } from 'oidc-provider'
import { startUpstream, type TestUpstream } from './upstreams.js'

/** The audience of the test API: what its tokens must say (`aud`). */
export const API_AUDIENCE = 'https://api.test.example'
export const API_SCOPES = ['tickets:read', 'tickets:write'] as const

export interface OidcServer {
  readonly issuer: string
  readonly tokenUrl: string
  readonly jwksUrl: string
  /** POST /token requests received so far (every grant, every answer). */
  tokenRequests(): number
  /** Each POST /token request's `traceparent` header, in order (issue 46). */
  tokenTraceparents(): (string | undefined)[]
  /** Seconds an access token lives (the resource server's accessTokenTTL); change it between fetches. */
  accessTokenTtl: number
  close(): Promise<void>
}

type After = { after(fn: () => Promise<unknown>): void }

/**
 * A real OAuth 2.0 authorization server for tests: panva's oidc-provider (a certified OpenID
 * Provider) on 127.0.0.1, with the client credentials grant and RFC 8707 resource indicators, so
 * tokens are RS256 JWTs whose `aud` is the API. `clients` are registered as confidential clients
 * (client_secret_basic unless their metadata says otherwise).
 */
/** Whose tokens the server takes as RFC 8693 subject tokens: an issuer and its JWKS. */
export interface SubjectIssuer {
  readonly issuer: string
  readonly jwksUrl: string
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange'

export async function startOidcServer(
  t: After,
  clients: readonly ClientMetadata[],
  subjects?: SubjectIssuer,
): Promise<OidcServer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' }
  const sockets = new Set<Socket>()
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const state = { tokenRequests: 0, accessTokenTtl: 300, traceparents: [] as (string | undefined)[] }
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: clients.map((client) => ({
      grant_types: subjects ? ['client_credentials', TOKEN_EXCHANGE] : ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
      ...client,
    })),
    scopes: [...API_SCOPES],
    // Set, so the provider does not warn about its defaults. A client-credentials token lives what the
    // provider's ClientCredentials TTL says (the resource server's accessTokenTTL did not shorten or
    // lengthen it): both read the test's current value.
    ttl: {
      AccessToken: () => state.accessTokenTtl,
      ClientCredentials: () => state.accessTokenTtl,
      Grant: 300,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== API_AUDIENCE) throw new oidcErrors.InvalidTarget()
          return {
            scope: API_SCOPES.join(' '),
            audience: API_AUDIENCE,
            accessTokenFormat: 'jwt',
            accessTokenTTL: state.accessTokenTtl,
            jwt: { sign: { alg: 'RS256' } },
          }
        },
      },
    },
  })
  if (subjects) registerTokenExchange(provider, subjects, () => state.accessTokenTtl)
  const handle = provider.callback()
  server.on('request', (req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/token')) {
      state.tokenRequests++
      const traceparent = req.headers.traceparent
      state.traceparents.push(Array.isArray(traceparent) ? traceparent.join(',') : traceparent)
    }
    handle(req, res)
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  const close = async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  t.after(close)
  return {
    issuer,
    tokenUrl: `${issuer}/token`,
    jwksUrl: `${issuer}/jwks`,
    tokenRequests: () => state.tokenRequests,
    tokenTraceparents: () => [...state.traceparents],
    get accessTokenTtl() {
      return state.accessTokenTtl
    },
    set accessTokenTtl(seconds: number) {
      state.accessTokenTtl = seconds
    },
    close,
  }
}

/**
 * RFC 8693 at the provider, as its docs say to add a grant (`registerGrantType`): the subject
 * token must be a JWT of `subjects` (verified against its JWKS), the audience the API's, the
 * scopes the API's; the token issued is a JWT access token whose `sub` is the subject's and whose
 * `client_id` is the exchanging client's. Anything else is refused with the RFC's OAuth errors.
 */
function registerTokenExchange(provider: Provider, subjects: SubjectIssuer, ttl: () => number): void {
  const keys = createRemoteJWKSet(new URL(subjects.jwksUrl))
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx) => {
      const params = ctx.oidc.params as Record<string, string | undefined>
      if (!params.subject_token) throw new oidcErrors.InvalidRequest('subject_token is missing')
      const subject = await jwtVerify(params.subject_token, keys, { issuer: subjects.issuer }).then(
        (verified) => verified.payload,
        () => {
          throw new oidcErrors.InvalidGrant('subject_token is not a valid token of the trusted issuer')
        },
      )
      if (params.audience !== API_AUDIENCE) throw new oidcErrors.InvalidTarget('unknown audience')
      const scope = params.scope ?? ''
      if (scope.split(' ').some((one) => one !== '' && !(API_SCOPES as readonly string[]).includes(one)))
        throw new oidcErrors.InvalidScope('scope not allowed', scope)
      const { AccessToken, Grant, ResourceServer } = ctx.oidc.provider
      const client = ctx.oidc.client!
      const grant = new Grant({ accountId: subject.sub!, clientId: client.clientId })
      grant.addResourceScope(API_AUDIENCE, scope)
      const token = new AccessToken({
        accountId: subject.sub!,
        client,
        grantId: await grant.save(),
        gty: 'token-exchange',
        scope,
        resourceServer: new ResourceServer(API_AUDIENCE, {
          scope: API_SCOPES.join(' '),
          audience: API_AUDIENCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: ttl(),
          jwt: { sign: { alg: 'RS256' } },
        }),
      })
      ctx.body = {
        access_token: await token.save(),
        issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        token_type: 'Bearer',
        expires_in: token.expiration,
        scope,
      }
    },
    ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
  )
}

/** What the API saw of one call: the verified token's claims, or why it refused it. */
export interface ApiCall {
  readonly path: string
  readonly token: string | undefined
  readonly claims: JWTPayload | undefined
  readonly status: number
}

export interface ProtectedApi extends TestUpstream {
  readonly calls: ApiCall[]
  /** Tokens the API refuses with 401 from now on (as after a key rotation or a revocation); `*`: all. */
  readonly revoked: Set<string>
}

/**
 * A real API that accepts only tokens the authorization server signed for it: the bearer JWT is
 * verified with jose against the server's JWKS, its issuer and `aud`; 401 otherwise. It answers
 * `{ sub, client_id, scope }` of the verified token.
 */
export async function startProtectedApi(t: After, oidc: OidcServer): Promise<ProtectedApi> {
  const keys = createRemoteJWKSet(new URL(oidc.jwksUrl))
  const calls: ApiCall[] = []
  const revoked = new Set<string>()
  const upstream = await startUpstream(t, async (received, res) => {
    const header = received.headers.authorization
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined
    let claims: JWTPayload | undefined
    if (token && !revoked.has(token) && !revoked.has('*'))
      claims = await jwtVerify(token, keys, { issuer: oidc.issuer, audience: API_AUDIENCE }).then(
        (verified) => verified.payload,
        () => undefined,
      )
    const status = claims ? 200 : 401
    calls.push({ path: received.target, token, claims, status })
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify(
        claims
          ? { sub: claims.sub, client_id: claims.client_id, scope: claims.scope }
          : { error: 'invalid_token' },
      ),
    )
  })
  return { ...upstream, calls, revoked }
}

/** An OpenAPI 3.1 document of the test API whose oauth2 scheme names `tokenUrl` for client credentials. */
export function oauthSpec(upstreamUrl: string, tokenUrl: string): string {
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Tickets behind OAuth2', version: '1.0.0' },
    servers: [{ url: upstreamUrl }],
    components: {
      securitySchemes: {
        oauth: {
          type: 'oauth2',
          flows: {
            clientCredentials: { tokenUrl, scopes: { 'tickets:read': 'read', 'tickets:write': 'write' } },
          },
        },
      },
    },
    paths: {
      '/tickets': {
        get: {
          operationId: 'listTickets',
          security: [{ oauth: ['tickets:read'] }],
          responses: { '200': { description: 'ok' } },
        },
        post: {
          operationId: 'createTicket',
          security: [{ oauth: ['tickets:write'] }],
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  })
}
