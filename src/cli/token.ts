import { createHash, randomBytes } from 'node:crypto'

/** What `toolgate token new` prints: the token, and a configuration that admits it. */
export interface NewToken {
  readonly token: string
  /** Starts with `clients:`; saved as the whole TOOLGATE_CONFIG file it admits the token. */
  readonly yaml: string
}

const CLIENT_ID = /^[a-zA-Z0-9_.-]{1,64}$/

/**
 * `toolgate token new [--client ID]`: 256 random bits, base64url (RFC 6750 b64token characters).
 * The configuration holds only the token's SHA-256, so the file can be read by whoever deploys it.
 */
export function newToken(clientId: string, random: (size: number) => Buffer = randomBytes): NewToken {
  if (!CLIENT_ID.test(clientId))
    throw new TypeError(
      `a client id is 1 to 64 letters, digits, '_', '.' or '-', not ${JSON.stringify(clientId)}`,
    )
  const token = `tg_${random(32).toString('base64url')}`
  const sha256 = createHash('sha256').update(token).digest('hex')
  const yaml = [
    'clients:',
    `  - id: ${clientId}`,
    `    token: { sha256: ${sha256} }`,
    '    tools: ["*"]            # tool IDs or wire names it may call (globs)',
    '    # profiles: [support]   # only these views',
    '    # approve: ["billing:*"] # tools needing approval it may approve',
    '    # rateLimit: { max: 600, windowSeconds: 60 }',
    '    # operator: true        # may read /catalog and /catalog/reloads',
    '    # sessions: true        # may create sessions',
    '',
  ].join('\n')
  return { token, yaml }
}
