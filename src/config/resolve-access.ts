import { createHash } from 'node:crypto'
import { isSecureUrl } from '../access/fetch-json.js'
import type { AccessConfig, AccessMode, Client, ClientProof, JwtProof, RateLimit } from '../access/types.js'
import type {
  ClientFileConfig,
  FileConfig,
  JwtFileConfig,
  RateLimitConfig,
  TokenSourceConfig,
} from './schema.js'
import { resolveSecretOrReport, type SecretContext } from './secrets.js'

const DEFAULT_WINDOW_SECONDS = 60
/** Per client: 100 calls a second on average, over a minute. */
const DEFAULT_CLIENT_LIMIT: RateLimit = { max: 6_000, windowMs: 60_000 }
/** Per address, anonymous (discovery), in production: 20 a second on average, over a minute. */
const DEFAULT_ANONYMOUS_LIMIT: RateLimit = { max: 1_200, windowMs: 60_000 }
/**
 * Failed authentications per address, in every environment: a client that fails once a second
 * keeps being told why; a flood of bad tokens costs one signature verification a second.
 */
const DEFAULT_FAILED_AUTHENTICATION_LIMIT: RateLimit = { max: 60, windowMs: 60_000 }
const DEFAULT_ALGORITHMS = ['RS256', 'ES256']
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30
/** A flood of tokens with unknown key ids costs the issuer one JWKS fetch per 30 s. */
const DEFAULT_KEYS_COOLDOWN_SECONDS = 30
/** RFC 9068 names the OAuth client of a JWT access token `client_id`. */
const DEFAULT_CLIENT_CLAIM = 'client_id'
/** The id the legacy `sessions.createToken` is served under. */
export const LEGACY_SESSION_CLIENT = 'sessions.createToken'

/**
 * The `clients:` of the YAML file and their surroundings, resolved once at boot: token secrets
 * read and reduced to their SHA-256, defaults applied, contradictions reported in `problems`.
 */
export async function resolveAccess(
  file: FileConfig,
  production: boolean,
  context: SecretContext,
  problems: string[],
): Promise<AccessConfig> {
  const publicUrl = file.publicUrl?.replace(/\/+$/, '')
  const clients: Client[] = []
  for (const [index, client] of (file.clients ?? []).entries()) {
    const where = `clients[${index}] (${client.id})`
    if (clients.some((known) => known.id === client.id)) problems.push(`${where}: the id is used twice`)
    const proof = await resolveProof(client, where, publicUrl, context, problems)
    for (const profile of client.profiles ?? [])
      if (profile !== 'discover' && !file.profiles?.[profile])
        problems.push(`${where}.profiles: no profile ${profile} (profiles: lists them; discover is built in)`)
    if (proof) clients.push(clientFrom(client, proof, file.rateLimits?.clients))
  }
  const mode = accessMode(file, clients.length, production, problems)
  const legacy = await legacySessionClient(file, context, problems)
  return {
    mode,
    clients: legacy ? [...clients, legacy] : clients,
    ...(publicUrl ? { publicUrl } : {}),
    allowedOrigins: file.allowedOrigins?.includes('*') ? '*' : (file.allowedOrigins ?? []),
    ...optional('anonymousRateLimit', anonymousLimit(file.rateLimits?.anonymous, production)),
    ...optional(
      'failedAuthenticationLimit',
      limitOf(file.rateLimits?.failedAuthentications, DEFAULT_FAILED_AUTHENTICATION_LIMIT),
    ),
  }
}

function accessMode(file: FileConfig, clients: number, production: boolean, problems: string[]): AccessMode {
  if (file.access === 'open') {
    if (clients > 0)
      problems.push('access: open admits everyone, so clients: would restrict nobody — remove one of them')
    return 'open'
  }
  if (clients > 0) return 'clients'
  return production || file.access === 'clients' ? 'closed' : 'open'
}

function clientFrom(client: ClientFileConfig, proof: ClientProof, clientsDefault?: RateLimitConfig): Client {
  const rateLimit = limitOf(client.rateLimit ?? clientsDefault, DEFAULT_CLIENT_LIMIT)
  return {
    id: client.id,
    proof,
    ...(client.profiles ? { profiles: client.profiles } : {}),
    tools: client.tools ?? ['*'],
    approve: client.approve ?? [],
    ...optional('rateLimit', rateLimit),
    operator: client.operator ?? false,
    sessions: client.sessions ?? false,
  }
}

async function resolveProof(
  client: ClientFileConfig,
  where: string,
  publicUrl: string | undefined,
  context: SecretContext,
  problems: string[],
): Promise<ClientProof | undefined> {
  if (Boolean(client.token) === Boolean(client.jwt)) {
    problems.push(`${where}: give exactly one of token (a static bearer token) or jwt (an OIDC issuer)`)
    return undefined
  }
  if (client.token) {
    const sha256 = await tokenDigest(client.token, `${where}.token`, context, problems)
    return sha256 ? { kind: 'token', sha256 } : undefined
  }
  const jwt = resolveJwt(client.id, client.jwt!, `${where}.jwt`, publicUrl, problems)
  return jwt ? { kind: 'jwt', jwt } : undefined
}

function resolveJwt(
  id: string,
  config: JwtFileConfig,
  where: string,
  publicUrl: string | undefined,
  problems: string[],
): JwtProof | undefined {
  const before = problems.length
  // The resource metadata (RFC 9728) and every WWW-Authenticate name publicUrl: built from the
  // Host a caller sends, they pointed MCP clients wherever that caller chose (issue 41 class 7).
  if (!publicUrl)
    problems.push(
      `${where}: a JWT client needs publicUrl, the gateway's canonical URL: the OAuth resource metadata and WWW-Authenticate name it, never the Host of a request (on a development machine: publicUrl: http://localhost:3000)`,
    )
  const audience =
    config.audience === undefined ? publicUrl && [publicUrl, `${publicUrl}/mcp`] : [config.audience].flat()
  for (const [key, url] of [
    ['issuer', config.issuer],
    ['jwksUrl', config.jwksUrl],
  ] as const)
    if (url !== undefined && !isSecureUrl(url))
      problems.push(`${where}.${key}: ${url} must be https (plain http only on localhost)`)
  if (problems.length > before || !audience) return undefined
  return {
    issuer: config.issuer,
    ...(config.jwksUrl ? { jwksUrl: config.jwksUrl } : {}),
    audience,
    algorithms: config.algorithms ?? DEFAULT_ALGORITHMS,
    clockToleranceSeconds: config.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
    keysCooldownSeconds: config.keysCooldownSeconds ?? DEFAULT_KEYS_COOLDOWN_SECONDS,
    claim: config.claim ?? DEFAULT_CLIENT_CLAIM,
    value: config.value ?? id,
    scopes: config.scopes ?? [],
  }
}

async function tokenDigest(
  source: TokenSourceConfig,
  where: string,
  context: SecretContext,
  problems: string[],
): Promise<Buffer | undefined> {
  if ('sha256' in source) return Buffer.from(source.sha256, 'hex')
  const secret = await resolveSecretOrReport(source, context, where, problems)
  if (!secret) return undefined
  if (secret.reveal().length < 16) {
    problems.push(`${where}: a token needs at least 16 characters (toolgate token new makes one)`)
    return undefined
  }
  return createHash('sha256').update(secret.reveal()).digest()
}

/**
 * `sessions.createToken` (before clients existed) is served as a client that may create sessions
 * and nothing else. It does not count as a configured client: a development gateway that only
 * has it stays open, as it always was.
 */
async function legacySessionClient(
  file: FileConfig,
  context: SecretContext,
  problems: string[],
): Promise<Client | undefined> {
  const source = file.sessions?.createToken
  if (!source) return undefined
  const secret = await resolveSecretOrReport(source, context, 'sessions.createToken', problems)
  if (!secret) return undefined
  return {
    id: LEGACY_SESSION_CLIENT,
    proof: { kind: 'token', sha256: createHash('sha256').update(secret.reveal()).digest() },
    tools: [],
    approve: [],
    operator: false,
    sessions: true,
  }
}

function anonymousLimit(config: RateLimitConfig | undefined, production: boolean): RateLimit | undefined {
  if (config === undefined) return production ? DEFAULT_ANONYMOUS_LIMIT : undefined
  return limitOf(config, DEFAULT_ANONYMOUS_LIMIT)
}

function limitOf(config: RateLimitConfig | undefined, fallback: RateLimit): RateLimit | undefined {
  if (config === false) return undefined
  if (config === undefined) return fallback
  return { max: config.max, windowMs: (config.windowSeconds ?? DEFAULT_WINDOW_SECONDS) * 1000 }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}
