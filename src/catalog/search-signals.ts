import type { Service, Tool } from './types.js'

/**
 * What a user's words say beyond the spec's own (issue 43): the API-domain lexicon that bridges
 * the vocabularies, the values in a task that point at the tools taking them, and the service a
 * task names. Each is general knowledge written down here, reviewable, and measured on the tune
 * half of the evaluation set (test/fixtures/search-eval) — never phrases of its tasks.
 */

/**
 * Concepts as APIs name them, each with the words users say for them. A query word of a group
 * also searches the group's other words, at EXPANSION_WEIGHT: `trash` finds `delete`, `owe` finds
 * `balance`. Multi-word phrases are matched on the query's words in order.
 */
const LEXICON: readonly (readonly string[])[] = [
  // actions
  [
    'delete',
    'remove',
    'erase',
    'destroy',
    'trash',
    'discard',
    'purge',
    'wipe',
    'get rid of',
    'drop',
    'kill',
    'tear down',
  ],
  [
    'create',
    'add',
    'new',
    'make',
    'register',
    'provision',
    'spin up',
    'launch',
    'set up',
    'generate',
    'open',
  ],
  ['update', 'change', 'modify', 'edit', 'rename', 'adjust', 'bump', 'resize', 'switch', 'patch'],
  ['list', 'enumerate', 'browse', 'all', 'every'],
  ['get', 'read', 'fetch', 'retrieve', 'view', 'look up', 'details', 'info', 'inspect'],
  ['search', 'find', 'query', 'mention', 'mentions', 'look for', 'containing'],
  ['cancel', 'abort', 'void', 'terminate', 'halt', 'call off', 'revoke', 'withdraw'],
  ['disable', 'deactivate', 'turn off', 'switch off', 'suspend', 'pause', 'freeze', 'take offline', 'block'],
  ['enable', 'activate', 'turn on', 'switch on', 'resume', 'unpause', 'unfreeze', 'reactivate', 'unblock'],
  ['rollback', 'roll back', 'revert', 'restore', 'undo', 'put back', 'previous version'],
  ['download', 'save', 'export', 'local copy'],
  ['upload', 'attach', 'import'],
  ['send', 'deliver', 'dispatch', 'mail', 'email'],
  ['refund', 'reimburse', 'money back', 'reverse'],
  ['transfer', 'move', 'hand over', 'reassign'],
  ['copy', 'duplicate', 'clone', 'fork'],
  ['validate', 'verify', 'check', 'lint'],
  ['approve', 'accept', 'confirm'],
  ['reject', 'decline', 'deny'],
  ['invite', 'add member', 'onboard'],
  ['subscribe', 'follow', 'watch', 'notify', 'alert'],
  ['share', 'grant', 'give access'],
  ['start', 'begin', 'kick off', 'trigger', 'run'],
  ['stop', 'end', 'finish', 'hang up'],
  // objects
  ['customer', 'client', 'buyer', 'shopper', 'purchaser'],
  ['user', 'member', 'person', 'people', 'teammate', 'account holder', 'seat'],
  ['permission', 'access', 'role', 'rights', 'privilege', 'allowed', 'collaboration', 'collaborator'],
  ['credential', 'token', 'key', 'api key', 'secret', 'password'],
  ['webhook', 'hook', 'callback', 'event subscription', 'ping', 'endpoint notification'],
  ['invoice', 'bill', 'billing', 'statement'],
  ['balance', 'owe', 'owed', 'funds', 'credit', 'usage charges'],
  ['payment', 'charge', 'pay', 'paid', 'transaction'],
  ['subscription', 'plan', 'recurring', 'renewal'],
  ['server', 'machine', 'instance', 'vm', 'virtual machine', 'host', 'droplet', 'node'],
  ['volume', 'disk', 'drive', 'block storage'],
  ['database', 'db', 'postgres', 'mysql', 'redis', 'cluster'],
  ['deployment', 'deploy', 'release', 'rollout', 'build', 'publish', 'went live'],
  ['version', 'revision', 'history', 'snapshot'],
  ['file', 'document', 'doc', 'attachment', 'pdf', 'spreadsheet'],
  ['folder', 'directory', 'project'],
  ['comment', 'note', 'remark', 'reply', 'feedback'],
  ['reaction', 'emoji', 'like', 'thumbs up'],
  ['label', 'tag', 'classification', 'classify', 'category'],
  ['shipment', 'package', 'parcel', 'postage', 'shipping label', 'mailer'],
  ['message', 'sms', 'text', 'mms'],
  ['call', 'phone call', 'dial', 'ring'],
  ['phone number', 'number', 'line', 'did'],
  ['meeting', 'conference', 'room', 'video call'],
  ['log', 'logs', 'audit', 'activity', 'events', 'history'],
  ['error', 'errors', 'failure', 'failed', 'problem', 'alert'],
  ['limit', 'quota', 'cap', 'maximum'],
  ['price', 'cost', 'rate', 'quote', 'estimate', 'how much'],
  ['domain', 'dns', 'hostname', 'record'],
  ['certificate', 'ssl', 'tls', 'https'],
  ['team', 'organization', 'org', 'workspace', 'group'],
  ['identity', 'me', 'current user', 'logged in', 'who am i', 'whoami'],
  ['schedule', 'cron', 'recurring job', 'scheduled'],
  ['environment variable', 'env var', 'env', 'config', 'setting', 'settings'],
]

/** A related word weighs this much against the user's own word. */
const EXPANSION_WEIGHT = 0.7
const MAX_PHRASE_WORDS = 3

/** Phrase (lower case, words joined by one space) → the other words of its groups. */
const RELATED: ReadonlyMap<string, readonly string[]> = (() => {
  const related = new Map<string, Set<string>>()
  for (const group of LEXICON)
    for (const phrase of group) {
      const others = related.get(phrase) ?? new Set<string>()
      for (const other of group) if (other !== phrase) others.add(other)
      related.set(phrase, others)
    }
  return new Map([...related].map(([phrase, others]) => [phrase, [...others]]))
})()

/**
 * The words a query's lexicon groups add, each once: phrases of up to three query words are
 * looked up, longest first.
 */
export function relatedWords(words: readonly string[]): string[] {
  const lower = words.map((word) => word.toLowerCase())
  const added = new Set<string>()
  for (let start = 0; start < lower.length; start++)
    for (let length = Math.min(MAX_PHRASE_WORDS, lower.length - start); length >= 1; length--) {
      const phrase = lower.slice(start, start + length)
      const others = RELATED.get(phrase.join(' '))
      if (!others) continue
      for (const other of others) for (const word of other.split(' ')) added.add(word)
      break
    }
  for (const word of lower) added.delete(word)
  return [...added]
}

export { EXPANSION_WEIGHT }

/**
 * The prefix of an identifier as APIs document them: `cus_` (Stripe), `se-` (ShipEngine),
 * `addr1`/`stake1`/`pool1` (Bech32, Cardano). Letters, then `_` or `-`, or Bech32's separator `1`
 * followed by its data characters.
 */
const ID_PREFIX = /^([a-z][a-z0-9]{0,9}?)(?:[_-](?=[a-z0-9]{3,})|1(?=[02-9ac-hj-np-z]{6,}))/i

export function idPrefix(value: string): string | undefined {
  const match = ID_PREFIX.exec(value)
  if (!match) return undefined
  const separator = value.charAt(match[1]!.length)
  // An identifier carries digits after its prefix; `my-site` and `all_items` are words.
  if (!/\d/.test(value.slice(match[1]!.length + 1))) return undefined
  return `${match[1]!.toLowerCase()}${separator}`
}

/** Prefixes of the values a tool's arguments document (examples and literal-led patterns). */
export function documentedPrefixes(tool: Tool): Set<string> {
  const prefixes = new Set<string>()
  const add = (example: unknown) => {
    const prefix = typeof example === 'string' ? idPrefix(example) : undefined
    if (prefix) prefixes.add(prefix)
  }
  for (const parameter of tool.parameters) for (const example of parameter.examples ?? []) add(example)
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>
  for (const property of Object.values(properties)) {
    for (const example of Array.isArray(property.examples) ? property.examples : []) add(example)
    if (typeof property.pattern === 'string') {
      const literal = /^\^([a-z][a-z0-9]{0,9}[_-])/i.exec(property.pattern)
      if (literal) prefixes.add(literal[1]!.toLowerCase())
    }
  }
  return prefixes
}

/** Words of a query that look like identifiers with a documented prefix. */
export function queryPrefixes(query: string, known: ReadonlySet<string>): Set<string> {
  const found = new Set<string>()
  for (const token of query.match(/[A-Za-z][A-Za-z0-9_-]{3,}/g) ?? []) {
    const prefix = idPrefix(token)
    if (prefix && known.has(prefix)) found.add(prefix)
  }
  return found
}

/** Words too common to name a service by. */
const GENERIC_NAME_WORDS = new Set(
  'api apis rest v1 v2 v3 io com net org www the and of for documentation platform service services public data cloud reference spec openapi'.split(
    ' ',
  ),
)

/**
 * The words that name a service: its id, alias and title, and the brand in its servers' host
 * names (`api.digitalocean.com` → digitalocean, `cardano-mainnet.blockfrost.io` → cardano,
 * blockfrost). A word two services share names neither.
 */
export function serviceNames(services: readonly Service[]): Map<string, string> {
  const owners = new Map<string, Set<string>>()
  for (const service of services) {
    const hosts = service.servers.flatMap((url) => {
      try {
        return [new URL(url).hostname]
      } catch {
        return []
      }
    })
    const words = [service.id, service.alias, service.title, ...hosts]
      .join(' ')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length >= 3 && !GENERIC_NAME_WORDS.has(word) && !/^\d/.test(word))
    for (const word of words) {
      const set = owners.get(word) ?? new Set<string>()
      set.add(service.id)
      owners.set(word, set)
    }
  }
  return new Map([...owners].filter(([, ids]) => ids.size === 1).map(([word, ids]) => [word, [...ids][0]!]))
}
