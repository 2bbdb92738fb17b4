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
  NODE_ENV: Type.Optional(Type.String()),
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

/** Per security scheme of the spec: a secret (API key, bearer token) or basic-auth username and password. */
const CredentialSchema = Type.Union([
  SecretSource,
  Type.Object(
    { username: Type.Union([Type.String(), SecretSource]), password: SecretSource },
    { additionalProperties: false },
  ),
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
    timeoutMs: Type.Optional(
      Type.Integer({ minimum: 100, maximum: 600_000, description: 'upstream response timeout' }),
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

const OpalSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    description: Type.Optional(Type.String()),
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
  },
  { additionalProperties: false },
)
export type FileConfig = Static<typeof FileConfigSchema>
export type ServiceConfig = Static<typeof ServiceSchema>
export type CredentialConfig = Static<typeof CredentialSchema>
export type SecretSourceConfig = Static<typeof SecretSource>
