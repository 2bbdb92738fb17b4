import { shortHash } from '../util/hash.js'
import type { HttpMethod } from './types.js'

/** Seed 000 allows letters, digits and underscores; every other target allows at least that (SPEC §1). */
export const WIRE_NAME_PATTERN = /^[a-zA-Z0-9_]{1,64}$/
const MAX_LENGTH = 64
const SUFFIX_LENGTH = 8

export interface WireNameSubject {
  readonly id: string
  readonly alias: string
  readonly operationId?: string
  readonly method: HttpMethod
  readonly rawPath: string
}

/** `getTicketById` → `get_ticket_by_id`, `users.get` → `users_get`, `HTTPServer` → `http_server`. */
export function snakeCase(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^a-zA-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase()
}

function aliasPart(alias: string): string {
  return alias.replace(/[^a-zA-Z0-9_]+/g, '_').replace(/^_+|_+$/g, '') || 'service'
}

function operationPart(subject: WireNameSubject): string {
  const fromId = subject.operationId === undefined ? '' : snakeCase(subject.operationId)
  return fromId || snakeCase(`${subject.method} ${subject.rawPath.replace(/[{}]/g, '')}`) || subject.method
}

/** The name before length and clash handling: `<alias>_<operationId in snake_case>` (SPEC §1). */
export function baseWireName(subject: WireNameSubject): string {
  return `${aliasPart(subject.alias)}_${operationPart(subject)}`.replace(/_+/g, '_')
}

/** An operationId already in snake_case is the author's own choice of name: it wins a clash. */
function isVerbatim(subject: WireNameSubject): boolean {
  return subject.operationId !== undefined && snakeCase(subject.operationId) === subject.operationId
}

function withSuffix(base: string, id: string, length = SUFFIX_LENGTH): string {
  const head = base.slice(0, MAX_LENGTH - length - 1).replace(/_+$/, '')
  return `${head}_${shortHash(id, length)}`
}

export interface WireNameAssignment {
  readonly names: ReadonlyMap<string, string>
  /** Tool IDs whose name got a hash suffix, with why. */
  readonly adjusted: ReadonlyMap<string, string>
}

/**
 * Names every tool. Over-long names and clashing names get a short hash of the tool ID, so a
 * name depends only on the service alias and the operation: stable across reloads, never random.
 * In a clash, a verbatim snake_case operationId keeps the plain name; the others are suffixed.
 */
export function assignWireNames(subjects: readonly WireNameSubject[]): WireNameAssignment {
  const groups = new Map<string, WireNameSubject[]>()
  for (const subject of subjects) {
    const base = baseWireName(subject)
    groups.set(base, [...(groups.get(base) ?? []), subject])
  }
  const names = new Map<string, string>()
  const adjusted = new Map<string, string>()
  for (const [base, group] of groups) {
    const keeper = group.length === 1 ? group[0] : uniqueVerbatim(group)
    for (const subject of group) {
      if (subject === keeper && base.length <= MAX_LENGTH) {
        names.set(subject.id, base)
        continue
      }
      names.set(subject.id, withSuffix(base, subject.id))
      adjusted.set(
        subject.id,
        base.length > MAX_LENGTH
          ? `${base} is longer than ${MAX_LENGTH}`
          : `${base} is also the name of another tool`,
      )
    }
  }
  resolveSuffixCollisions(names)
  return { names, adjusted }
}

function uniqueVerbatim(group: readonly WireNameSubject[]): WireNameSubject | undefined {
  const verbatim = group.filter(isVerbatim)
  return verbatim.length === 1 ? verbatim[0] : undefined
}

/** A suffixed name could, in theory, equal another tool's name: lengthen the hash until none do. */
function resolveSuffixCollisions(names: Map<string, string>): void {
  const seen = new Map<string, string>()
  for (const [id, name] of [...names].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let candidate = name
    for (let length = SUFFIX_LENGTH + 4; seen.has(candidate); length += 4)
      candidate = withSuffix(name, id, length)
    seen.set(candidate, id)
    names.set(id, candidate)
  }
}

/**
 * Namespace names OpenAI's Responses API keeps for its own tools (openai/codex#20724 validates
 * dynamic tool namespaces against the same list): a service may not take one.
 */
const RESERVED_NAMESPACES = new Set([
  'functions',
  'multi_tool_use',
  'file_search',
  'web',
  'browser',
  'image_gen',
  'computer',
  'container',
  'terminal',
  'python',
  'python_user_visible',
  'api_tool',
  'tool_search',
  'submodel_delegator',
])

/**
 * One OpenAI namespace name per service (`^[a-zA-Z0-9_-]{1,64}$`, openai/codex#20724): the
 * alias as it prefixes wire names (`help.desk` → `help_desk`), `_api` after a reserved name, a
 * short hash of the service id when too long or taken by another service. Stable across reloads.
 */
export function assignNamespaceNames(
  services: readonly { readonly id: string; readonly alias: string }[],
): ReadonlyMap<string, string> {
  const names = new Map<string, string>()
  const taken = new Set<string>()
  for (const service of services) {
    let name = aliasPart(service.alias)
    if (RESERVED_NAMESPACES.has(name)) name = `${name}_api`
    if (name.length > MAX_LENGTH || taken.has(name)) name = withSuffix(name, service.id)
    for (let length = SUFFIX_LENGTH + 4; taken.has(name); length += 4)
      name = withSuffix(name, service.id, length)
    taken.add(name)
    names.set(service.id, name)
  }
  return names
}
