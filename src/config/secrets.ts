import { inspect } from 'node:util'
import { isHeaderValue } from '../util/header-value.js'
import type { ClientFileConfig, CredentialConfig, SecretSourceConfig, ServiceConfig } from './schema.js'

/** What a secret prints as everywhere: logs, JSON, and a dry run's request (issue 19). */
export const REDACTED = '[redacted]'

/**
 * A credential value. It prints as [redacted] in JSON, logs, util.inspect and string templates,
 * so a config dump, an error or a log line can never carry it (SPEC §3 step 3).
 */
export class Secret {
  readonly #value: string
  constructor(value: string) {
    this.#value = value
  }
  reveal(): string {
    return this.#value
  }
  toJSON(): string {
    return REDACTED
  }
  toString(): string {
    return REDACTED
  }
  [inspect.custom](): string {
    return REDACTED
  }
}

/** An OAuth2 client the gateway fetches tokens as (client credentials grant, issue 45). */
export interface OAuthClientCredential {
  readonly kind: 'oauth2-client'
  readonly clientId: Secret
  readonly clientSecret: Secret
  /** Configured token endpoint; unset: the scheme's `flows.clientCredentials.tokenUrl`. */
  readonly tokenUrl?: string
  /** Configured scopes; unset: those the operation's security requirement lists. */
  readonly scopes?: readonly string[]
  readonly audience?: string
  readonly auth: 'client_secret_basic' | 'client_secret_post'
}

export type Credential =
  | { readonly kind: 'secret'; readonly secret: Secret }
  | { readonly kind: 'basic'; readonly username: Secret; readonly password: Secret }
  | OAuthClientCredential

/** service id → security scheme name → credential. */
export type ServiceCredentials = Readonly<Record<string, Readonly<Record<string, Credential>>>>

export interface SecretContext {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly readText: (path: string) => Promise<string>
}

/** Resolves every configured credential at boot; returns the problems (named by service and scheme) it met. */
export async function resolveCredentials(
  services: Readonly<Record<string, ServiceConfig>>,
  context: SecretContext,
): Promise<{ credentials: ServiceCredentials; problems: string[] }> {
  const credentials: Record<string, Record<string, Credential>> = {}
  const problems: string[] = []
  for (const [serviceId, service] of Object.entries(services)) {
    for (const [scheme, config] of Object.entries(service.credentials ?? {})) {
      const where = `services.${serviceId}.credentials.${scheme}`
      try {
        credentials[serviceId] ??= {}
        credentials[serviceId][scheme] = await resolveCredential(config, context, where)
      } catch (err) {
        problems.push((err as Error).message)
      }
    }
  }
  return { credentials, problems }
}

/** client id → its own credentials (`clients[].credentials`), by service id and scheme. */
export type ClientCredentials = Readonly<Record<string, ServiceCredentials>>

/** Resolves every client's own upstream credentials at boot; problems are named by their path. */
export async function resolveClientCredentials(
  clients: readonly ClientFileConfig[],
  context: SecretContext,
): Promise<{ credentials: ClientCredentials; problems: string[] }> {
  const credentials: Record<string, Record<string, Record<string, Credential>>> = {}
  const problems: string[] = []
  for (const [index, client] of clients.entries()) {
    for (const [serviceId, schemes] of Object.entries(client.credentials ?? {})) {
      for (const [scheme, config] of Object.entries(schemes)) {
        const where = `clients[${index}] (${client.id}).credentials.${serviceId}.${scheme}`
        try {
          const resolved = await resolveCredential(config, context, where)
          credentials[client.id] ??= {}
          credentials[client.id]![serviceId] ??= {}
          credentials[client.id]![serviceId]![scheme] = resolved
        } catch (err) {
          problems.push((err as Error).message)
        }
      }
    }
  }
  return { credentials, problems }
}

async function resolveCredential(
  config: CredentialConfig,
  context: SecretContext,
  where: string,
): Promise<Credential> {
  if ('clientId' in config) return resolveOAuthClient(config, context, where)
  if ('password' in config) {
    // Basic credentials travel base64-encoded: any text but a control character can go.
    const username =
      typeof config.username === 'string'
        ? checked(new Secret(config.username), 'encoded', `${where}.username`)
        : await resolveSecret(config.username, context, `${where}.username`, 'encoded')
    return {
      kind: 'basic',
      username,
      password: await resolveSecret(config.password, context, `${where}.password`, 'encoded'),
    }
  }
  return { kind: 'secret', secret: await resolveSecret(config, context, where) }
}

type OAuthClientConfig = Extract<CredentialConfig, { clientId: unknown }>

/** service id → the OAuth2 client that exchanges callers' tokens for it (RFC 8693), its tokenUrl set. */
export type TokenExchanges = Readonly<Record<string, OAuthClientCredential & { readonly tokenUrl: string }>>

/** Resolves `services.<id>.tokenExchange` at boot; problems are named by their path. */
export async function resolveTokenExchanges(
  services: Readonly<Record<string, ServiceConfig>>,
  context: SecretContext,
  problems: string[],
): Promise<TokenExchanges> {
  const exchanges: Record<string, OAuthClientCredential & { tokenUrl: string }> = {}
  for (const [serviceId, service] of Object.entries(services)) {
    const exchange = service.tokenExchange
    if (!exchange) continue
    const where = `services.${serviceId}.tokenExchange`
    if (service.forwardCallerToken)
      problems.push(`${where}: exchange the caller's token or forward it (forwardCallerToken), not both`)
    try {
      exchanges[serviceId] = {
        ...(await resolveOAuthClient(exchange, context, where)),
        tokenUrl: exchange.tokenUrl,
      }
    } catch (err) {
      problems.push((err as Error).message)
    }
  }
  return exchanges
}

async function resolveOAuthClient(
  config: OAuthClientConfig | NonNullable<ServiceConfig['tokenExchange']>,
  context: SecretContext,
  where: string,
): Promise<OAuthClientCredential> {
  if (!config.clientSecret)
    throw new Error(
      `${where}.clientSecret: a clientId needs its clientSecret ({ env }, { file } or { value })`,
    )
  // Both may travel base64-encoded in Authorization (client_secret_basic) or in a form body.
  const clientId =
    typeof config.clientId === 'string'
      ? checked(new Secret(config.clientId), 'encoded', `${where}.clientId`)
      : await resolveSecret(config.clientId, context, `${where}.clientId`, 'encoded')
  return {
    kind: 'oauth2-client',
    clientId,
    clientSecret: await resolveSecret(config.clientSecret, context, `${where}.clientSecret`, 'encoded'),
    ...(config.tokenUrl ? { tokenUrl: config.tokenUrl } : {}),
    ...(config.scopes ? { scopes: config.scopes } : {}),
    ...(config.audience ? { audience: config.audience } : {}),
    auth: config.auth === 'client_secret_post' ? 'client_secret_post' : 'client_secret_basic',
  }
}

/**
 * How a secret travels: as an HTTP header value (API keys, bearer tokens, remote-source and client
 * tokens), or base64-encoded (basic-auth username and password).
 */
type Carried = 'header' | 'encoded'

/** Controls and line breaks (C0, DEL, C1): no secret holds one on purpose. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/

/**
 * Every secret is checked once, at load, so none fails later in a request where the error text
 * could quote it (issue 41: a token with a line break reached fetch, whose error quoted it into
 * /ready). The refusal names the configuration path, never the value.
 */
function checked(secret: Secret, carried: Carried, where: string): Secret {
  const value = secret.reveal()
  if (carried === 'header' && !isHeaderValue(value))
    throw new Error(
      `${where}: the secret holds a line break, control or non-ASCII character, which an HTTP header cannot carry`,
    )
  if (carried === 'encoded' && CONTROL.test(value))
    throw new Error(`${where}: the secret holds a line break or control character`)
  return secret
}

/**
 * One secret by its source, carried in a header (a bearer token); a failure is added to
 * `problems` (named by `where`) instead of thrown.
 */
export async function resolveSecretOrReport(
  source: SecretSourceConfig,
  context: SecretContext,
  where: string,
  problems: string[],
): Promise<Secret | undefined> {
  try {
    return await resolveSecret(source, context, where)
  } catch (err) {
    problems.push((err as Error).message)
    return undefined
  }
}

async function resolveSecret(
  source: SecretSourceConfig,
  context: SecretContext,
  where: string,
  carried: Carried = 'header',
): Promise<Secret> {
  return checked(await readSecret(source, context, where), carried, where)
}

async function readSecret(
  source: SecretSourceConfig,
  context: SecretContext,
  where: string,
): Promise<Secret> {
  if ('value' in source) return new Secret(source.value)
  if ('env' in source) {
    const value = context.env[source.env]
    if (value === undefined || value === '')
      throw new Error(`${where}: environment variable ${source.env} is not set`)
    return new Secret(value)
  }
  try {
    // Secret files usually end with a newline that is not part of the secret.
    return new Secret((await context.readText(source.file)).replace(/\r?\n$/, ''))
  } catch (err) {
    throw new Error(`${where}: cannot read secret file ${source.file}: ${(err as Error).message}`)
  }
}
