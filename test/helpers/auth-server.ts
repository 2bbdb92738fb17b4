import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { exportJWK, exportSPKI, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose'

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>

interface SigningKey {
  readonly kid: string
  readonly alg: string
  readonly pair: KeyPair
  readonly jwk: JWK
}

/** How the JWKS endpoint behaves: answering, down (500 or a reset connection), slow, or garbage. */
export type JwksMode = 'ok' | 'error' | 'reset' | 'slow' | 'garbage' | 'not-a-key-set'

export interface AuthServer {
  /** The issuer, also the base of every endpoint. */
  readonly issuer: string
  readonly jwksUrl: string
  /** JWKS requests answered so far, whatever the mode. */
  readonly jwksFetches: () => number
  jwksMode: JwksMode
  /** Signs claims (iss and a 5-minute exp filled in unless given) with the current key of `alg`. */
  sign(claims: JWTPayload, options?: { alg?: 'RS256' | 'ES256'; kid?: string }): Promise<string>
  /** A new RS256 key with a new kid becomes current and is published; the old one is dropped. */
  rotate(): Promise<string>
  /** The current RS256 public key as PEM (the HS256 key-confusion attack signs with it). */
  publicKeyPem(): Promise<string>
  /** client id → secret, for the client_credentials grant at /token. */
  readonly clients: Map<string, string>
  close(): Promise<void>
}

/**
 * A small OAuth 2.1 / OIDC authorization server for tests: RS256 and ES256 keys made with jose,
 * its JWKS, RFC 8414 and OpenID discovery documents, and a client_credentials token endpoint that
 * puts the RFC 8707 `resource` in `aud`. Real HTTP on 127.0.0.1, closed after the test.
 */
export async function startAuthServer(t: { after(fn: () => Promise<unknown>): void }): Promise<AuthServer> {
  let counter = 0
  const makeKey = async (alg: 'RS256' | 'ES256'): Promise<SigningKey> => {
    const pair = await generateKeyPair(alg, { extractable: true })
    const kid = `${alg.toLowerCase()}-${++counter}`
    return { kid, alg, pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } }
  }
  const keys = { RS256: await makeKey('RS256'), ES256: await makeKey('ES256') }
  let fetches = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer)
    if (url.pathname === '/jwks') {
      fetches++
      return answerJwks(res)
    }
    if (
      url.pathname === '/.well-known/openid-configuration' ||
      url.pathname === '/.well-known/oauth-authorization-server'
    )
      return json(res, 200, metadata())
    if (url.pathname === '/token' && req.method === 'POST') return token(req, res)
    json(res, 404, { error: 'not_found' })
  })
  const answerJwks = async (res: import('node:http').ServerResponse) => {
    switch (auth.jwksMode) {
      case 'error':
        return json(res, 503, { error: 'down' })
      case 'reset':
        return res.socket?.destroy()
      case 'slow':
        await sleep(20_000)
        return json(res, 200, { keys: Object.values(keys).map((k) => k.jwk) })
      case 'garbage':
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end('<html>maintenance</html>')
      case 'not-a-key-set':
        return json(res, 200, { hello: 'world' })
      default:
        return json(res, 200, { keys: Object.values(keys).map((k) => k.jwk) })
    }
  }
  const metadata = () => ({
    issuer,
    jwks_uri: `${issuer}/jwks`,
    token_endpoint: `${issuer}/token`,
    authorization_endpoint: `${issuer}/authorize`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
  })
  const token = async (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1]
    const [id, secret] = basic
      ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent)
      : [form.get('client_id'), form.get('client_secret')]
    if (form.get('grant_type') !== 'client_credentials' || !id || auth.clients.get(id) !== secret)
      return json(res, 401, { error: 'invalid_client' })
    const scope = form.get('scope') ?? undefined
    const accessToken = await auth.sign({
      client_id: id,
      ...(form.get('resource') ? { aud: form.get('resource')! } : {}),
      ...(scope ? { scope } : {}),
    })
    json(res, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 300,
      ...(scope ? { scope } : {}),
    })
  }
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  t.after(close)
  const auth: AuthServer = {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    jwksFetches: () => fetches,
    jwksMode: 'ok',
    async sign(claims, options = {}) {
      const key = keys[options.alg ?? 'RS256']
      const now = Math.floor(Date.now() / 1000)
      return new SignJWT({ iss: issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'at+jwt' })
        .sign(key.pair.privateKey)
    },
    async rotate() {
      keys.RS256 = await makeKey('RS256')
      return keys.RS256.kid
    },
    publicKeyPem: () => exportSPKI(keys.RS256.pair.publicKey),
    clients: new Map(),
    close,
  }
  return auth
}

function json(res: import('node:http').ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
