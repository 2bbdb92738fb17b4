import Type, { type Static } from 'typebox'

/** The environment (SPEC §4). Every variable is optional: `npm start` needs none of them. */
export const EnvSchema = Type.Object({
  PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65_535, description: 'listen port (3000)' })),
  HOST: Type.Optional(Type.String({ minLength: 1, description: 'listen address (0.0.0.0)' })),
  SPECS_DIR: Type.Optional(Type.String({ minLength: 1, description: 'directory of spec files (./specs)' })),
  REDIS_URL: Type.Optional(
    Type.String({ pattern: '^rediss?://', description: 'Redis for sessions; unset = in-memory' }),
  ),
  TOOLGATE_CONFIG: Type.Optional(
    Type.String({ minLength: 1, description: 'path of the optional YAML configuration' }),
  ),
  LOG_LEVEL: Type.Optional(
    Type.String({ enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
  ),
  TRUST_PROXY: Type.Optional(
    Type.String({ description: 'true, false, or a comma-separated list of addresses/CIDRs' }),
  ),
  SESSION_TTL_SECONDS: Type.Optional(
    Type.Integer({ minimum: 1, description: 'default session lifetime (3600)' }),
  ),
  SESSION_MAX_TTL_SECONDS: Type.Optional(
    Type.Integer({ minimum: 1, description: 'longest session allowed (86400)' }),
  ),
  DRAIN_DELAY: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 600_000, description: 'ms to keep serving after SIGTERM' }),
  ),
  SHUTDOWN_TIMEOUT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 600_000,
      description:
        'ms the in-flight drain may take after DRAIN_DELAY before the process exits anyway (30000)',
    }),
  ),
  SPECS_POLL_INTERVAL: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 3_600_000,
      description: 'ms between safety-net checks of the specs directory besides the watcher; 0 = off (30000)',
    }),
  ),
  BODY_LIMIT: Type.Optional(
    Type.Integer({
      minimum: 1024,
      maximum: 104_857_600,
      description: 'largest request body in bytes (1048576)',
    }),
  ),
  // Exactly these: `Production` or `prod` once left access open in production (issue 41 class 8).
  NODE_ENV: Type.Optional(
    Type.String({
      enum: ['production', 'development', 'test'],
      description: 'production closes access without clients and turns on its defaults; unset = development',
    }),
  ),
  REDIS_KEY_PREFIX: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'prefix of every Redis key (toolgate:)' }),
  ),
  EXAMPLE_UPSTREAM: Type.Optional(
    Type.String({
      enum: ['auto', 'on', 'off'],
      description: 'start the example upstream: auto = only when SPECS_DIR is not set',
    }),
  ),
})
export type Env = Static<typeof EnvSchema>

const NameList = Type.Array(Type.String({ minLength: 1 }))

/** Where a secret comes from: an environment variable, a file (Kubernetes/Docker secrets) or, for demos, inline. */
const SecretSource = Type.Union([
  Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ file: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ value: Type.String() }, { additionalProperties: false }),
])

/**
 * An OAuth2 client the gateway fetches tokens as (client credentials grant, issue 45). The secret
 * is optional here only so that its absence is reported by name (secrets.ts), not as a misfit of
 * every credential form.
 */
const OAuthClientSchema = Type.Object(
  {
    clientId: Type.Union([Type.String({ minLength: 1 }), SecretSource]),
    clientSecret: Type.Optional(SecretSource),
    tokenUrl: Type.Optional(
      Type.String({
        pattern: '^https?://[^\\s]+$',
        description: "the token endpoint; default: the scheme's flows.clientCredentials.tokenUrl",
        problem: 'must be an http:// or https:// URL',
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }), {
        description: "scopes asked for; default: those the operation's security requirement lists",
      }),
    ),
    audience: Type.Optional(
      Type.String({ minLength: 1, description: 'sent as the RFC 8707 resource (and audience) parameter' }),
    ),
    auth: Type.Optional(
      Type.String({
        enum: ['client_secret_basic', 'client_secret_post'],
        description: 'how the client authenticates at the token endpoint (client_secret_basic)',
      }),
    ),
  },
  { additionalProperties: false },
)

/** RFC 8693: the caller's verified JWT traded for a token with the upstream's audience (issue 45). */
const TokenExchangeSchema = Type.Object(
  {
    tokenUrl: Type.String({
      pattern: '^https?://[^\\s]+$',
      description: 'the token endpoint that exchanges tokens',
      problem: 'must be an http:// or https:// URL',
    }),
    clientId: Type.Union([Type.String({ minLength: 1 }), SecretSource]),
    clientSecret: Type.Optional(SecretSource),
    audience: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'the upstream the token is asked for (audience and resource)',
      }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }), {
        description: "scopes asked for; default: those the operation's security requirement lists",
      }),
    ),
    auth: Type.Optional(Type.String({ enum: ['client_secret_basic', 'client_secret_post'] })),
  },
  { additionalProperties: false },
)

/**
 * Per security scheme of the spec: a secret (API key, bearer token), basic-auth username and
 * password, or an OAuth2 client whose tokens the gateway fetches.
 */
const CredentialSchema = Type.Union([
  SecretSource,
  Type.Object(
    { username: Type.Union([Type.String(), SecretSource]), password: SecretSource },
    { additionalProperties: false },
  ),
  OAuthClientSchema,
])

const OpalAuthRequirement = Type.Object(
  {
    provider: Type.String({ minLength: 1 }),
    scopeBundle: Type.String({ minLength: 1 }),
    required: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

const ServiceSchema = Type.Object(
  {
    source: Type.Optional(
      Type.String({ minLength: 1, description: 'spec file name in the specs directory' }),
    ),
    alias: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,40}$' })),
    upstream: Type.Optional(
      Type.String({ pattern: '^https?://', description: 'base URL that replaces the spec servers' }),
    ),
    credentials: Type.Optional(Type.Record(Type.String({ minLength: 1 }), CredentialSchema)),
    allowOrigins: Type.Optional(
      Type.Array(Type.String({ pattern: '^https?://[^/?#]+$' }), {
        description:
          "other origins an operation's or path's servers may name that still get this service's credentials",
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 600_000, description: 'upstream response timeout' }),
    ),
    tokenExchange: Type.Optional(TokenExchangeSchema),
    forwardCallerToken: Type.Optional(
      Type.Boolean({
        description:
          "send the caller's own verified JWT upstream as its bearer token: only for an upstream of the gateway's own audience (MCP forbids it otherwise; prefer tokenExchange)",
      }),
    ),
    requireClientCredentials: Type.Optional(
      Type.Boolean({
        description:
          "true: only a client's own credentials (clients[].credentials.<service>) are sent; a caller without them is refused, never given the gateway's",
      }),
    ),
    outputSchemas: Type.Optional(
      Type.Boolean({
        description:
          'false: MCP tools/list offers no outputSchema for this service (an upstream whose answers break its spec); answers are sent unchanged, structuredContent included',
      }),
    ),
    opal: Type.Optional(
      Type.Object(
        {
          authRequirements: Type.Optional(Type.Array(OpalAuthRequirement)),
          forwardAccessToken: Type.Optional(
            Type.Boolean({ description: "send the caller's Opal access token upstream as a bearer token" }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

const SafetyFilter = Type.Object(
  {
    readOnly: Type.Optional(Type.Boolean()),
    destructive: Type.Optional(Type.Boolean()),
    idempotent: Type.Optional(Type.Boolean()),
    openWorld: Type.Optional(Type.Boolean()),
    requiresApproval: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

const ProfileSchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    services: Type.Optional(NameList),
    groups: Type.Optional(NameList),
    tags: Type.Optional(NameList),
    include: Type.Optional(NameList),
    exclude: Type.Optional(NameList),
    safety: Type.Optional(SafetyFilter),
    includeHidden: Type.Optional(Type.Boolean()),
    mcpMode: Type.Optional(
      Type.Union([Type.Literal('list'), Type.Literal('search')], {
        description:
          'what MCP tools/list answers for this profile: every tool (list, the default) or the search meta-tools (search); ?mode= overrides',
      }),
    ),
  },
  { additionalProperties: false },
)

const PolicySchema = Type.Object(
  {
    tools: NameList,
    requiresApproval: Type.Optional(Type.Boolean()),
    approved: Type.Optional(
      Type.Boolean({ description: 'the policy itself grants approval to these tools' }),
    ),
  },
  { additionalProperties: false },
)

const UpstreamSchema = Type.Object(
  {
    connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    maxResponseBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1_073_741_824 })),
    connectionsPerOrigin: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    tokenTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 120_000,
        description: 'bound on one request to an OAuth2 token endpoint, in ms (10000)',
      }),
    ),
    breaker: Type.Optional(
      Type.Object(
        {
          failureThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          cooldownMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

/** How many requests per window; `false` switches the limit off. */
const RateLimitSchema = Type.Union([
  Type.Literal(false),
  Type.Object(
    {
      max: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'requests per window' }),
      windowSeconds: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 86_400, description: 'the window in seconds (60)' }),
      ),
    },
    { additionalProperties: false },
  ),
])

/** A static bearer token: a secret source, or only its SHA-256 (what `toolgate token new` prints). */
const TokenSource = Type.Union([
  SecretSource,
  Type.Object(
    {
      sha256: Type.String({
        pattern: '^[0-9a-fA-F]{64}$',
        description: 'hex SHA-256 of the token',
        // load-config.ts says this rather than the pattern (issue 42).
        problem:
          'must be 64 hex characters (0-9, a-f): the SHA-256 of the token, as `toolgate token new` prints it',
      }),
    },
    { additionalProperties: false },
  ),
])

/** Asymmetric JWS algorithms only: a JWKS holds public keys, and an HMAC "verified" with one is a forgery. */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const

const JwtSchema = Type.Object(
  {
    issuer: Type.String({ pattern: '^https?://', description: 'the iss the tokens carry' }),
    jwksUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: "the issuer's JWKS; default: jwks_uri from its /.well-known/openid-configuration",
      }),
    ),
    audience: Type.Optional(
      Type.Union(
        [Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })],
        {
          description: 'accepted aud values; default: publicUrl and publicUrl/mcp (RFC 8707)',
        },
      ),
    ),
    algorithms: Type.Optional(
      Type.Array(Type.String({ enum: [...JWT_ALGORITHMS] }), {
        minItems: 1,
        description: 'default RS256, ES256',
      }),
    ),
    clockToleranceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 300 })),
    keysCooldownSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3_600,
        description: 'a token with a key id the cached keys lack refetches them at most once per this (30)',
      }),
    ),
    claim: Type.Optional(
      Type.String({ minLength: 1, description: 'the claim that names the client (client_id, RFC 9068)' }),
    ),
    value: Type.Optional(
      Type.String({ minLength: 1, description: "the claim's value; default: the client id" }),
    ),
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'scopes every token must carry' }),
    ),
  },
  { additionalProperties: false },
)

/** One caller the gateway admits (issue 13): how it proves itself, and what it may do. */
const ClientSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,64}$' }),
    description: Type.Optional(Type.String()),
    token: Type.Optional(TokenSource),
    jwt: Type.Optional(JwtSchema),
    profiles: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'views whose tools it may call; default: all',
      }),
    ),
    tools: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'tool ID or wire-name globs it may call ("*")',
      }),
    ),
    approve: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: 'globs of requiresApproval tools it may approve',
      }),
    ),
    rateLimit: Type.Optional(RateLimitSchema),
    operator: Type.Optional(Type.Boolean({ description: 'may read /catalog and /catalog/reloads' })),
    sessions: Type.Optional(Type.Boolean({ description: 'may create sessions (POST /api/sessions)' })),
    credentials: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1 }),
        Type.Record(Type.String({ minLength: 1 }), CredentialSchema),
        {
          description:
            "this client's own upstream credentials, by service id and security scheme: they replace the gateway's for its calls (issue 45)",
        },
      ),
    ),
  },
  { additionalProperties: false },
)

const RateLimitsSchema = Type.Object(
  {
    clients: Type.Optional(RateLimitSchema),
    anonymous: Type.Optional(RateLimitSchema),
    /** Per address (IPv6: per /64); counted before a token is verified. */
    failedAuthentications: Type.Optional(RateLimitSchema),
  },
  { additionalProperties: false },
)

const SessionsSchema = Type.Object(
  {
    createToken: Type.Optional(SecretSource),
  },
  { additionalProperties: false },
)

const RemoteSourceSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,64}$', description: 'the service id its tools get' }),
    alias: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,40}$' })),
    baseUrl: Type.String({ pattern: '^https?://' }),
    format: Type.Optional(Type.String({ enum: ['tools-list', 'jsonrpc-mcp'] })),
    token: Type.Optional(SecretSource),
    required: Type.Optional(
      Type.Boolean({ description: 'a failing required source stops the start (default true)' }),
    ),
  },
  { additionalProperties: false },
)

/** Bounds on spec files, the catalog build and tool arguments (issue 14); defaults in load-config.ts, fs-reader.ts and the executor. */
/** How workflow tools run (issue 47, docs/executor.md "Workflows"). */
const WorkflowsSchema = Type.Object(
  {
    maxSteps: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description:
          'steps one run may execute, retries and nested workflows included; goto loops end there (50)',
      }),
    ),
    maxDepth: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 32, description: 'how deep workflows may nest (4)' }),
    ),
    deadlineMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 3_600_000,
        description:
          'a run still going after this is stopped with 504; its trace says how far it came (60000)',
      }),
    ),
    traceBodies: Type.Optional(
      Type.Boolean({ description: "whether a run's trace carries each step's answer body (false)" }),
    ),
  },
  { additionalProperties: false },
)

const LimitsSchema = Type.Object(
  {
    specBytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        maximum: 1_073_741_824,
        description: 'largest spec file (or $ref-ed file) read, in bytes (67108864 = 64 MiB)',
      }),
    ),
    readTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 600_000,
        description: "bound on one spec file's read, in ms (5000)",
      }),
    ),
    operations: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'operations in one spec file; a file over it is not served (20000)',
      }),
    ),
    schemaNodes: Type.Optional(
      Type.Integer({
        minimum: 10,
        maximum: 10_000_000,
        description: "objects and arrays in one tool's input schema; a tool over it is left out (25000)",
      }),
    ),
    outputSchemaNodes: Type.Optional(
      Type.Integer({
        minimum: 10,
        maximum: 10_000_000,
        description:
          "objects and arrays in one tool's output schema; past it only the top-level properties are described (500)",
      }),
    ),
    buildTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 3_600_000,
        description: 'a catalog build running longer is stopped; the last good catalog serves (60000)',
      }),
    ),
    buildMemoryMb: Type.Optional(
      Type.Integer({
        // The worker holds the o200k tokenizer (~35 MB of heap) to count the views' tokens.
        minimum: 64,
        maximum: 65_536,
        description:
          "the build process's heap (old generation) in MB; a build needing more is stopped (2048)",
      }),
    ),
    remoteSourceBytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        maximum: 1_073_741_824,
        description:
          "decoded bytes (after gzip, deflate or br) of one remote source's answers, all pages together; a source over it is not served (16777216 = 16 MiB)",
      }),
    ),
    headersTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 500,
        maximum: 600_000,
        description:
          "a client's request headers must arrive within this, or its connection is closed (20000)",
      }),
    ),
    requestTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 500,
        maximum: 3_600_000,
        description:
          "a client's whole request (headers and body) must arrive within this, or it gets 408 (60000)",
      }),
    ),
    connections: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: 'open client connections at once; one more is closed as it is accepted (10000)',
      }),
    ),
    argumentDepth: Type.Optional(
      Type.Integer({
        minimum: 2,
        maximum: 256,
        description: 'how deep the arguments of a tool call may nest; deeper is refused with 400 (64)',
      }),
    ),
  },
  { additionalProperties: false },
)

const BudgetsSchema = Type.Object(
  {
    openaiTools: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000,
        description: "functions in one view's /openai.json before toolgate lint warns (128: OpenAI's limit)",
      }),
    ),
    tokens: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000_000,
        description:
          'o200k tokens of one view in one format (as /catalog counts them) before toolgate lint warns',
      }),
    ),
  },
  { additionalProperties: false },
)

const OpalSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
)

/** MCP tools/list paging (issue 42); defaults in plugins/mcp-calls.ts. */
const McpSchema = Type.Object(
  {
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description:
          'tools on one tools/list page, more when a list would need more than maxPages pages (100)',
      }),
    ),
    maxPages: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64,
        description:
          "pages one tools/list takes at most, whatever the catalog's size; the official clients stop at 64 (50)",
      }),
    ),
  },
  { additionalProperties: false },
)

/** Tool search's semantic signal (issue 43): an OpenAI-compatible embeddings endpoint; words alone without it. */
const SearchSchema = Type.Object(
  {
    embeddings: Type.Optional(
      Type.Object(
        {
          url: Type.String({
            pattern: '^https?://[^/?#]+(/[^?#]*)?$',
            description:
              "an OpenAI-compatible API's base URL (OpenAI, Azure, Ollama, TEI, vLLM); the gateway POSTs to {url}/embeddings",
          }),
          model: Type.String({ minLength: 1, maxLength: 200 }),
          apiKey: Type.Optional(SecretSource),
          timeoutMs: Type.Optional(
            Type.Integer({
              minimum: 50,
              maximum: 60_000,
              description:
                "each request to the endpoint, a query's included: past it the search ranks by words (2000)",
            }),
          ),
          batchSize: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 2048, description: 'tools embedded per request (64)' }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)

/** The optional YAML file named by TOOLGATE_CONFIG. */
export const FileConfigSchema = Type.Object(
  {
    services: Type.Optional(Type.Record(Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,64}$' }), ServiceSchema)),
    profiles: Type.Optional(Type.Record(Type.String({ pattern: '^[a-zA-Z0-9_.-]{1,64}$' }), ProfileSchema)),
    policies: Type.Optional(Type.Array(PolicySchema)),
    upstream: Type.Optional(UpstreamSchema),
    opal: Type.Optional(OpalSchema),
    sessions: Type.Optional(SessionsSchema),
    remoteSources: Type.Optional(Type.Array(RemoteSourceSchema)),
    access: Type.Optional(
      Type.String({
        enum: ['open', 'clients'],
        description: 'open: anyone may call (even in production); clients: only the clients listed',
      }),
    ),
    publicUrl: Type.Optional(
      Type.String({
        pattern: '^https?://[^/?#]+(/[^?#]*)?$',
        description: "the gateway's canonical URL: the JWT audience and the MCP resource (RFC 8707, 9728)",
      }),
    ),
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ pattern: '^(\\*|https?://[^/?#]+)$' }), {
        description:
          'browser origins allowed to call tools and MCP, besides the gateway itself and localhost',
      }),
    ),
    clients: Type.Optional(Type.Array(ClientSchema)),
    rateLimits: Type.Optional(RateLimitsSchema),
    limits: Type.Optional(LimitsSchema),
    workflows: Type.Optional(WorkflowsSchema),
    budgets: Type.Optional(BudgetsSchema),
    mcp: Type.Optional(McpSchema),
    search: Type.Optional(SearchSchema),
  },
  { additionalProperties: false },
)
export type FileConfig = Static<typeof FileConfigSchema>
export type ServiceConfig = Static<typeof ServiceSchema>
export type CredentialConfig = Static<typeof CredentialSchema>
export type SecretSourceConfig = Static<typeof SecretSource>
export type TokenSourceConfig = Static<typeof TokenSource>
export type ClientFileConfig = Static<typeof ClientSchema>
export type JwtFileConfig = Static<typeof JwtSchema>
export type RateLimitConfig = Static<typeof RateLimitSchema>
