import { isRecord } from '../util/is-record.js'
import { childPointer } from '../util/json-pointer.js'
import type { ProblemSink } from './problems.js'
import type { OutputHint, PaginationHint, RetryPolicy, Safety } from './types.js'

/** The operation-level extensions seed 003 lists, plus x-price (seed 002) and x-openai-isConsequential. */
export interface OperationExtensions {
  readonly group?: string
  readonly name?: string
  readonly description?: string
  readonly aliases: readonly string[]
  readonly hidden: boolean
  readonly ignore: boolean
  readonly output?: OutputHint
  readonly pagination?: PaginationHint
  readonly retry?: RetryPolicy
  readonly safety: Partial<Safety>
  readonly price?: string
  readonly consequential?: boolean
}

const DEFAULT_RETRY_DELAY_MS = 100
const DEFAULT_RETRY_MAX_DELAY_MS = 2_000 // 2 s
const MAX_RETRY_ATTEMPTS = 10
const SAFETY_KEYS = ['readOnly', 'destructive', 'idempotent', 'openWorld', 'requiresApproval'] as const
const OUTPUT_FORMATS = ['json', 'table', 'text'] as const
const PAGINATION_STYLES = ['cursor', 'page', 'offset', 'link'] as const

/** Reads the x- extensions of one operation; a malformed one is reported and ignored, never fatal. */
export function readOperationExtensions(
  operation: Record<string, unknown>,
  pointer: string,
  sink: ProblemSink,
): OperationExtensions {
  const read = <T>(
    key: string,
    parse: (value: unknown) => T | undefined,
    expected: string,
  ): T | undefined => {
    if (!(key in operation)) return undefined
    const parsed = parse(operation[key])
    if (parsed === undefined) {
      sink.warn('extension-invalid', childPointer(pointer, key), `${key} must be ${expected}; it is ignored`)
    }
    return parsed
  }
  return {
    group: read('x-cli-group', nonEmptyString, 'a non-empty string'),
    name: read('x-cli-name', nonEmptyString, 'a non-empty string'),
    description: read('x-cli-description', nonEmptyString, 'a non-empty string'),
    aliases: read('x-cli-aliases', stringList, 'a list of strings') ?? [],
    hidden: read('x-cli-hidden', boolean, 'true or false') ?? false,
    ignore: read('x-cli-ignore', boolean, 'true or false') ?? false,
    output: read('x-cli-output', parseOutput, '{ format: json|table|text, path? } or a format name'),
    pagination: read(
      'x-cli-pagination',
      parsePagination,
      '{ style: cursor|page|offset|link, param?, nextPath?, limitParam? }',
    ),
    retry: read(
      'x-cli-retry',
      parseRetry,
      `{ maxAttempts: 1..${MAX_RETRY_ATTEMPTS}, baseDelayMs?, maxDelayMs? }, an integer or false`,
    ),
    safety: read('x-cli-safety', parseSafety, `an object of booleans (${SAFETY_KEYS.join(', ')})`) ?? {},
    price: read('x-price', parsePrice, 'a string such as "$0.01/query" or a number'),
    consequential: read('x-openai-isConsequential', boolean, 'true or false'),
  }
}

/** Parameter-level `x-cli-name`: the argument name agents see. */
export function readParameterCliName(parameter: Record<string, unknown>, pointer: string, sink: ProblemSink) {
  if (!('x-cli-name' in parameter)) return undefined
  const name = nonEmptyString(parameter['x-cli-name'])
  if (name === undefined)
    sink.warn(
      'extension-invalid',
      childPointer(pointer, 'x-cli-name'),
      'x-cli-name must be a non-empty string; it is ignored',
    )
  return name
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

function boolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined
}

function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value]
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return undefined
  return value
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((item) => item === value)
}

function parseOutput(value: unknown): OutputHint | undefined {
  if (typeof value === 'string')
    return oneOf(value, OUTPUT_FORMATS) && { format: value as OutputHint['format'] }
  if (!isRecord(value)) return undefined
  const format = oneOf(value.format ?? 'json', OUTPUT_FORMATS)
  if (!format || (value.path !== undefined && typeof value.path !== 'string')) return undefined
  return value.path === undefined ? { format } : { format, path: value.path as string }
}

function parsePagination(value: unknown): PaginationHint | undefined {
  if (!isRecord(value)) return undefined
  const style = oneOf(value.style, PAGINATION_STYLES)
  if (!style) return undefined
  const hint: Record<string, string> = { style }
  for (const key of ['param', 'nextPath', 'limitParam'] as const) {
    if (value[key] === undefined) continue
    if (typeof value[key] !== 'string') return undefined
    hint[key] = value[key] as string
  }
  return hint as unknown as PaginationHint
}

function parseRetry(value: unknown): RetryPolicy | undefined {
  if (value === false) return { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 }
  const attempts = typeof value === 'number' ? value : isRecord(value) ? value.maxAttempts : undefined
  if (!Number.isInteger(attempts) || (attempts as number) < 1 || (attempts as number) > MAX_RETRY_ATTEMPTS)
    return undefined
  const record = isRecord(value) ? value : {}
  const base = record.baseDelayMs ?? DEFAULT_RETRY_DELAY_MS
  const max = record.maxDelayMs ?? Math.max(DEFAULT_RETRY_MAX_DELAY_MS, base as number)
  if (!isDelay(base) || !isDelay(max) || max < base) return undefined
  return { maxAttempts: attempts as number, baseDelayMs: base, maxDelayMs: max }
}

function isDelay(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 60_000
}

function parseSafety(value: unknown): Partial<Safety> | undefined {
  if (!isRecord(value)) return undefined
  const safety: Partial<Record<(typeof SAFETY_KEYS)[number], boolean>> = {}
  for (const [key, flag] of Object.entries(value)) {
    const known = oneOf(key, SAFETY_KEYS)
    if (!known || typeof flag !== 'boolean') return undefined
    safety[known] = flag
  }
  return safety
}

function parsePrice(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return `$${value}`
  return nonEmptyString(value)
}
