import { isIP } from 'node:net'
import { Ajv, type ErrorObject } from 'ajv'
import type { TSchema } from 'typebox'
import { parse } from 'yaml'
import type { AccessConfig } from '../access/types.js'
import type { SpecReadLimits } from '../catalog/fs-reader.js'
import type { CatalogOptions, ServiceOptions } from '../catalog/options.js'
import {
  REMOTE_TOKEN_SCHEME,
  type RemoteReadOptions,
  type RemoteSourceOptions,
} from '../catalog/remote-source.js'
import type { EmbeddingsOptions } from '../search/embeddings.js'
import { deepFreeze } from '../util/deep-freeze.js'
import { isRecord } from '../util/is-record.js'
import { resolveAccess } from './resolve-access.js'
import {
  type CredentialConfig,
  type Env,
  EnvSchema,
  type FileConfig,
  FileConfigSchema,
  type ServiceConfig,
} from './schema.js'
import {
  type ClientCredentials,
  type Credential,
  resolveClientCredentials,
  resolveCredentials,
  resolveSecretOrReport,
  resolveTokenExchanges,
  type SecretContext,
  type ServiceCredentials,
  type TokenExchanges,
} from './secrets.js'

export interface GatewayConfig {
  readonly port: number
  readonly host: string
  readonly specsDir: string
  /** True when the caller chose SPECS_DIR: the example upstream then stays off (SPEC §4). */
  readonly specsDirFromEnv: boolean
  readonly redisUrl?: string
  readonly configFile?: string
  readonly logLevel: string
  readonly trustProxy: boolean | string[]
  readonly sessionTtlSeconds: number
  readonly sessionMaxTtlSeconds: number
  readonly drainDelayMs: number
  /** Bound on the in-flight drain after the drain delay; the process exits within drainDelayMs + this. */
  readonly shutdownTimeoutMs: number
  /** Period of the specs directory's safety-net check; 0 = the watcher alone. */
  readonly specsPollMs: number
  readonly bodyLimit: number
  /** How long a client may take to send its request, and how many may be connected (issue 41 class 9). */
  readonly server: ServerLimits
  readonly production: boolean
  readonly exampleUpstream: boolean
  readonly file: FileConfig
  /** Resolved upstream credentials; every value prints as [redacted]. */
  readonly credentials: ServiceCredentials
  /** Each client's own upstream credentials (`clients[].credentials`), by client id. */
  readonly clientCredentials: ClientCredentials
  /** `services.<id>.tokenExchange`, resolved: the OAuth2 client that exchanges callers' tokens. */
  readonly tokenExchanges: TokenExchanges
  readonly redisKeyPrefix: string
  /** Who may call what (clients, mode, origins, rate limits); tokens kept as digests only. */
  readonly access: AccessConfig
  /** Remote tool sources (seed 004), tokens resolved. */
  readonly remoteSources: readonly RemoteSourceOptions[]
  /** Bounds on the catalog build process (issue 14). */
  readonly build: BuildLimits
  /** Tool search's embeddings endpoint (issue 43), its key resolved; words alone when absent. */
  readonly embeddings?: EmbeddingsOptions
}

export interface BuildLimits {
  /** A build running longer is stopped and the reload fails; the last good catalog serves. */
  readonly timeoutMs: number
  /** The build process's old-generation heap; a build needing more is stopped the same way. */
  readonly memoryMb: number
}

/** A configuration that cannot start the gateway; the message names every bad variable or key. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

const DEFAULT_PORT = 3000
const DEFAULT_SESSION_TTL_SECONDS = 3_600 // 1 h
const DEFAULT_SESSION_MAX_TTL_SECONDS = 86_400 // 24 h
const PRODUCTION_DRAIN_DELAY_MS = 5_000 // 5 s (SPEC §5)
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000 // 30 s: under Kubernetes' default grace period once the drain delay is added
const DEFAULT_SPECS_POLL_MS = 30_000 // 30 s
const DEFAULT_BODY_LIMIT = 1_048_576 // 1 MiB
// 20,000 operations (limits.operations) build in about 5 s and 500 MB here; 103,000 took 24 s and 1.6 GB.
const DEFAULT_BUILD_TIMEOUT_MS = 60_000 // 60 s
const DEFAULT_BUILD_MEMORY_MB = 2_048 // 2 GiB of build-process heap, released when the build ends
const DEFAULT_EMBEDDINGS_TIMEOUT_MS = 2_000 // an agent's turn takes seconds; a query never waits longer
const DEFAULT_EMBEDDINGS_BATCH = 64

export interface ServerLimits {
  /** limits.headersTimeoutMs: the headers within this, or the socket is closed. */
  readonly headersTimeoutMs: number
  /** limits.requestTimeoutMs: the whole request within this, or 408. */
  readonly requestTimeoutMs: number
  /** limits.connections: client connections open at once. */
  readonly maxConnections: number
}

/** A client must send its headers within this (slowloris)… */
const DEFAULT_HEADERS_TIMEOUT_MS = 20_000
/** …and its whole request within this; the response (a slow upstream) is bounded by the upstream timeout. */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000
/** Far below a default `ulimit -n` of 1,048,576, far above what one gateway serves (bench: 256). */
const DEFAULT_MAX_CONNECTIONS = 10_000

/** Validates the environment and the optional YAML file once, at boot; the result is frozen. */
export async function loadConfig(
  rawEnv: Readonly<Record<string, string | undefined>>,
  readText: (path: string) => Promise<string>,
): Promise<GatewayConfig> {
  const env = validate<Env>(EnvSchema, pickEnv(rawEnv), 'environment variable ')
  const file = env.TOOLGATE_CONFIG ? await loadFileConfig(env.TOOLGATE_CONFIG, readText) : {}
  const production = env.NODE_ENV === 'production'
  const exampleUpstream = env.EXAMPLE_UPSTREAM ?? 'auto'
  const sessionMaxTtlSeconds = env.SESSION_MAX_TTL_SECONDS ?? DEFAULT_SESSION_MAX_TTL_SECONDS
  const sessionTtlSeconds =
    env.SESSION_TTL_SECONDS ?? Math.min(DEFAULT_SESSION_TTL_SECONDS, sessionMaxTtlSeconds)
  if (sessionTtlSeconds > sessionMaxTtlSeconds) {
    throw new ConfigError([
      `environment variable SESSION_TTL_SECONDS (${sessionTtlSeconds}) exceeds SESSION_MAX_TTL_SECONDS (${sessionMaxTtlSeconds})`,
    ])
  }
  const { credentials, problems } = await resolveCredentials(file.services ?? {}, { env: rawEnv, readText })
  const clientCredentials = await resolveClientCredentials(file.clients ?? [], { env: rawEnv, readText })
  problems.push(...clientCredentials.problems)
  const tokenExchanges = await resolveTokenExchanges(file.services ?? {}, { env: rawEnv, readText }, problems)
  const access = await resolveAccess(file, production, { env: rawEnv, readText }, problems)
  const remoteSources: RemoteSourceOptions[] = []
  const allCredentials: Record<string, Record<string, Credential>> = { ...credentials }
  for (const [index, remote] of (file.remoteSources ?? []).entries()) {
    const where = `remoteSources[${index}] (${remote.id})`
    const token = remote.token
      ? await resolveSecretOrReport(remote.token, { env: rawEnv, readText }, `${where}.token`, problems)
      : undefined
    remoteSources.push({
      id: remote.id,
      ...(remote.alias ? { alias: remote.alias } : {}),
      baseUrl: remote.baseUrl,
      format: (remote.format ?? 'tools-list') as RemoteSourceOptions['format'],
      ...(token ? { token } : {}),
      required: remote.required ?? true,
    })
    if (token)
      allCredentials[remote.id] = {
        ...allCredentials[remote.id],
        [REMOTE_TOKEN_SCHEME]: { kind: 'secret', secret: token },
      }
  }
  const server = serverLimits(file, problems)
  const embeddings = await embeddingsOptions(file, { env: rawEnv, readText }, problems)
  if (problems.length > 0) throw new ConfigError(problems)
  return deepFreeze({
    port: env.PORT ?? DEFAULT_PORT,
    host: env.HOST ?? '0.0.0.0',
    specsDir: env.SPECS_DIR ?? 'specs',
    specsDirFromEnv: env.SPECS_DIR !== undefined,
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.TOOLGATE_CONFIG ? { configFile: env.TOOLGATE_CONFIG } : {}),
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    sessionTtlSeconds,
    sessionMaxTtlSeconds,
    drainDelayMs: env.DRAIN_DELAY ?? (production ? PRODUCTION_DRAIN_DELAY_MS : 0),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    specsPollMs: env.SPECS_POLL_INTERVAL ?? DEFAULT_SPECS_POLL_MS,
    bodyLimit: env.BODY_LIMIT ?? DEFAULT_BODY_LIMIT,
    server,
    production,
    exampleUpstream: exampleUpstream === 'on' || (exampleUpstream === 'auto' && env.SPECS_DIR === undefined),
    file: withoutTokens(file),
    credentials: allCredentials,
    clientCredentials: clientCredentials.credentials,
    tokenExchanges,
    remoteSources,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'toolgate:',
    access,
    build: {
      timeoutMs: file.limits?.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS,
      memoryMb: file.limits?.buildMemoryMb ?? DEFAULT_BUILD_MEMORY_MB,
    },
    ...(embeddings ? { embeddings } : {}),
  })
}

/** search.embeddings with its defaults, the API key read from where it is kept. */
async function embeddingsOptions(
  file: FileConfig,
  context: SecretContext,
  problems: string[],
): Promise<EmbeddingsOptions | undefined> {
  const configured = file.search?.embeddings
  if (!configured) return undefined
  const apiKey = configured.apiKey
    ? await resolveSecretOrReport(configured.apiKey, context, 'search.embeddings.apiKey', problems)
    : undefined
  return {
    url: configured.url,
    model: configured.model,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs: configured.timeoutMs ?? DEFAULT_EMBEDDINGS_TIMEOUT_MS,
    batchSize: configured.batchSize ?? DEFAULT_EMBEDDINGS_BATCH,
  }
}

function serverLimits(file: FileConfig, problems: string[]): ServerLimits {
  const headersTimeoutMs = file.limits?.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS
  const requestTimeoutMs = file.limits?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  // Node refuses a server whose headers may take longer than the whole request.
  if (headersTimeoutMs > requestTimeoutMs)
    problems.push(
      `limits.headersTimeoutMs (${headersTimeoutMs}) exceeds limits.requestTimeoutMs (${requestTimeoutMs}): the headers are part of the request`,
    )
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    maxConnections: file.limits?.connections ?? DEFAULT_MAX_CONNECTIONS,
  }
}

/** Client tokens live on as digests in `access` only (issue 13): the file keeps no copy of them. */
function withoutTokens(file: FileConfig): FileConfig {
  const { clients: _clients, sessions: _sessions, search: _search, ...rest } = file
  return rest
}

/** What the catalog needs from the configuration. */
export function catalogOptions(config: GatewayConfig): CatalogOptions {
  const { services, profiles, policies, limits } = config.file
  const catalogLimits = {
    ...(limits?.operations !== undefined ? { operations: limits.operations } : {}),
    ...(limits?.schemaNodes !== undefined ? { schemaNodes: limits.schemaNodes } : {}),
    ...(limits?.outputSchemaNodes !== undefined ? { outputSchemaNodes: limits.outputSchemaNodes } : {}),
  }
  return {
    ...(services || Object.keys(config.clientCredentials).length > 0
      ? { services: withoutSecrets(services ?? {}, clientCredentialShapes(config)) }
      : {}),
    ...(Object.keys(catalogLimits).length > 0 ? { limits: catalogLimits } : {}),
    ...(profiles ? { profiles } : {}),
    ...(policies ? { policies } : {}),
    ...(config.configFile ? { configFile: config.configFile } : {}),
  }
}

/**
 * The services as the catalog build sees them: the credentials' shapes only (an OAuth2 client and
 * its token URL), never a secret's source or value — the build runs in another process.
 */
function withoutSecrets(
  services: Readonly<Record<string, ServiceConfig>>,
  clients: Readonly<Record<string, Record<string, Record<string, object>>>>,
): Record<string, ServiceOptions> {
  const ids = new Set([...Object.keys(services), ...Object.keys(clients)])
  return Object.fromEntries(
    [...ids].map((id) => {
      const { credentials, tokenExchange: _exchange, ...service } = services[id] ?? {}
      return [
        id,
        {
          ...service,
          ...(credentials ? { credentials: credentialShapes(credentials) } : {}),
          ...(clients[id] ? { clientCredentials: clients[id] } : {}),
          ...(services[id]?.tokenExchange
            ? { callerToken: 'exchanged' as const }
            : services[id]?.forwardCallerToken
              ? { callerToken: 'forwarded' as const }
              : {}),
        },
      ]
    }),
  )
}

/** service id → `clients (<id>).credentials.<service>` → the shapes of that client's credentials. */
function clientCredentialShapes(config: GatewayConfig) {
  const shapes: Record<string, Record<string, Record<string, object>>> = {}
  for (const [clientId, services] of Object.entries(config.clientCredentials))
    for (const [serviceId, schemes] of Object.entries(services)) {
      shapes[serviceId] ??= {}
      shapes[serviceId][`clients (${clientId}).credentials.${serviceId}`] = Object.fromEntries(
        Object.entries(schemes).map(([scheme, credential]) => [
          scheme,
          credential.kind === 'oauth2-client'
            ? { clientId: true, ...(credential.tokenUrl ? { tokenUrl: credential.tokenUrl } : {}) }
            : {},
        ]),
      )
    }
  return shapes
}

function credentialShapes(credentials: Readonly<Record<string, CredentialConfig>>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(credentials).map(([scheme, credential]) => [
      scheme,
      'clientId' in credential
        ? { clientId: true, ...(credential.tokenUrl ? { tokenUrl: credential.tokenUrl } : {}) }
        : {},
    ]),
  )
}

/** How spec files are read: limits.specBytes and limits.readTimeoutMs, defaults in the reader. */
export function specReadLimits(config: GatewayConfig): SpecReadLimits {
  const limits = config.file.limits ?? {}
  return {
    ...(limits.specBytes !== undefined ? { maxBytes: limits.specBytes } : {}),
    ...(limits.readTimeoutMs !== undefined ? { timeoutMs: limits.readTimeoutMs } : {}),
  }
}

/** How remote sources are read: limits.remoteSourceBytes, its default in remote-source.ts. */
export function remoteReadLimits(config: GatewayConfig): RemoteReadOptions {
  const bytes = config.file.limits?.remoteSourceBytes
  return bytes !== undefined ? { maxBytes: bytes } : {}
}

/** Environment values are strings: Ajv coerces them to the schema's integers while validating. */
// verbose: an error carries its schema, so a union's forms and a key's `problem` can be told.
const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: false, verbose: true })

function pickEnv(rawEnv: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = rawEnv[key]
    if (value !== undefined && value !== '') picked[key] = value
  }
  return picked
}

async function loadFileConfig(
  path: string,
  readText: (path: string) => Promise<string>,
): Promise<FileConfig> {
  let text: string
  try {
    text = await readText(path)
  } catch (err) {
    throw new ConfigError([`TOOLGATE_CONFIG: cannot read ${path}: ${(err as Error).message}`])
  }
  let value: unknown
  try {
    value = parse(text) ?? {}
  } catch (err) {
    throw new ConfigError([
      `TOOLGATE_CONFIG: ${path} is not valid YAML: ${(err as Error).message.split('\n')[0]}`,
    ])
  }
  return validate<FileConfig>(FileConfigSchema, value, `${path}: `)
}

function validate<T>(schema: TSchema, value: unknown, prefix: string): T {
  const check = ajv.compile(schema)
  if (check(value)) return value as T
  const problems = new Map<string, string>()
  const { dropped, forms } = readUnions(check.errors ?? [])
  for (const error of check.errors ?? []) {
    if (dropped.has(error)) continue
    const where = locate(error)
    if (problems.has(where)) continue
    problems.set(where, `${prefix}${where}: ${forms.get(error) ?? explain(error)}`)
  }
  throw new ConfigError([...problems.values()])
}

/** A union's problems that are the shape of the value itself, not of something inside it. */
const SHAPE_KEYWORDS = new Set(['type', 'required', 'additionalProperties', 'const', 'enum'])

/**
 * A value that fits no branch of a union (`anyOf`: a secret source, a token, a credential) gets
 * Ajv's errors for every branch, and the first said "unknown key" of a key another branch takes,
 * or "must be object" of a string (issue 42). Instead: when the value has the shape of one branch
 * (its keys and type fit), that branch's errors alone (`sha256: must be 64 hex characters`);
 * when it has none, one problem naming every form the union takes (`{ env }, { file }, { value }`).
 * Nested unions at the same place (a credential's secret source) count as their branches.
 */
function readUnions(errors: readonly ErrorObject[]) {
  const dropped = new Set<ErrorObject>()
  const forms = new Map<ErrorObject, string>()
  const unions = errors
    .filter((error) => error.keyword === 'anyOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length)
  for (const union of unions) {
    if (dropped.has(union)) continue
    const within = errors.filter((error) => error.schemaPath.startsWith(`${union.schemaPath}/`))
    const branches = leafBranches(union.schema as unknown[], union.schemaPath).map((branch) => {
      const own = within.filter((error) => error.schemaPath.startsWith(`${branch.path}/`))
      const misfit = own.some(
        (error) => error.instancePath === union.instancePath && SHAPE_KEYWORDS.has(error.keyword),
      )
      return { ...branch, own, misfit }
    })
    const fitting = branches.filter((branch) => !branch.misfit).sort((a, b) => a.own.length - b.own.length)
    const kept = new Set(fitting[0]?.own ?? [])
    for (const error of within) if (!kept.has(error)) dropped.add(error)
    if (fitting.length === 0)
      forms.set(
        union,
        `must be ${orList(branches.map((branch) => describeForm(branch.schema)))}, not ${given(union.data)}`,
      )
    else dropped.add(union)
  }
  return { dropped, forms }
}

/** A union's branches, nested unions flattened: each with its schema and its Ajv schema path. */
function leafBranches(schemas: readonly unknown[], path: string): { schema: unknown; path: string }[] {
  return schemas.flatMap((schema, index) => {
    const branchPath = `${path}/${index}`
    const nested = isRecord(schema) && Array.isArray(schema.anyOf) ? schema.anyOf : undefined
    return nested ? leafBranches(nested, `${branchPath}/anyOf`) : [{ schema, path: branchPath }]
  })
}

/** `{ env }`, `{ username, password }`, `a string`, `false`: a branch as a configuration writes it. */
function describeForm(schema: unknown): string {
  if (!isRecord(schema)) return 'a value'
  if ('const' in schema) return JSON.stringify(schema.const)
  if (isRecord(schema.properties)) return `{ ${Object.keys(schema.properties).join(', ')} }`
  return typeof schema.type === 'string' ? `a ${schema.type}` : 'a value'
}

/** What the configuration holds instead: its type, or an object's keys (names only, never values). */
function given(data: unknown): string {
  if (Array.isArray(data)) return 'a list'
  if (data === null) return 'null'
  if (isRecord(data)) {
    const keys = Object.keys(data)
    if (keys.length === 0) return 'an empty object'
    const shown = keys.slice(0, 4).map((key) => key.slice(0, 40))
    return `{ ${shown.join(', ')}${keys.length > shown.length ? ', …' : ''} }`
  }
  return `a ${typeof data}`
}

function orList(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}

function locate(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.')
  const extra = error.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : ''
  return [path, extra].filter(Boolean).join('.') || '(top level)'
}

function explain(error: ErrorObject): string {
  // A key's own words for what is wrong with it (schema.ts: `problem`), rather than its pattern.
  const problem = isRecord(error.parentSchema) ? error.parentSchema.problem : undefined
  if (typeof problem === 'string' && error.keyword !== 'additionalProperties') return problem
  if (error.keyword === 'additionalProperties') return 'unknown key'
  if (error.keyword === 'enum')
    return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`
  return error.message ?? 'is invalid'
}

/** proxy-addr's names for address ranges, besides addresses and CIDRs. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/**
 * `true`, `false` or a list of addresses, CIDRs and proxy-addr's names; anything else (`True`,
 * `yes`) is refused, not read as an address no proxy has (issue 41 class 8: no mode is guessed).
 */
function parseTrustProxy(value: string | undefined): boolean | string[] {
  if (value === undefined || value === 'false') return false
  if (value === 'true') return true
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const unknown = entries.filter((entry) => !isProxyEntry(entry))
  if (unknown.length > 0 || entries.length === 0)
    throw new ConfigError([
      `environment variable TRUST_PROXY: ${JSON.stringify(value.slice(0, 100))} must be true, false, or a comma-separated list of addresses, CIDRs, loopback, linklocal or uniquelocal`,
    ])
  return entries
}

function isProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_NAMES.has(entry)) return true
  const [address, bits, ...rest] = entry.split('/')
  const family = isIP(address ?? '')
  if (family === 0 || rest.length > 0) return false
  if (bits === undefined) return true
  const max = family === 4 ? 32 : 128
  if (family === 4 && isIP(bits) === 4) return true // a netmask: 10.0.0.0/255.0.0.0
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max
}
