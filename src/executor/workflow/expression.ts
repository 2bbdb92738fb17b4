import { LRUCache } from 'lru-cache'
/**
 * Arazzo 1.0.1 runtime expressions (§4.8): `$inputs.x`, `$steps.<id>.outputs.<name>`,
 * `$response.body#/pointer`, `$response.header.X`, `$statusCode`, `$url`, `$method`,
 * `$request.*`, `$outputs.*`, `$workflows.<id>.inputs|outputs.<name>` and `$components.*`, alone or
 * embedded in text as `{$expression}`. Parsed without backtracking or recursion: any string
 * either parses or is refused with what is wrong.
 */

/** A parsed expression: its root and the path below it. */
export type Expression =
  | { readonly root: 'url' | 'method' | 'statusCode'; readonly text: string }
  | {
      readonly root: 'request' | 'response'
      readonly source: 'body' | 'header' | 'query' | 'path'
      /** Header, query or path name; for a body, the JSON pointer after `#` ('' = the whole body). */
      readonly name: string
      readonly text: string
    }
  | {
      readonly root: 'inputs' | 'outputs' | 'steps' | 'workflows' | 'components' | 'sourceDescriptions'
      /** Dotted names; a trailing `#/pointer` reads into the value found. */
      readonly names: readonly string[]
      readonly pointer: string
      readonly text: string
    }

export type ParsedExpression =
  | { readonly ok: true; readonly expression: Expression }
  | {
      readonly ok: false
      readonly message: string
    }

const MAX_LENGTH = 2_048
const NAME = /^[A-Za-z0-9_.-]+$/
const TOKEN = /^[!#$%&'*+\-.^_`|~A-Za-z0-9]+$/
const ROOTS = new Set(['inputs', 'outputs', 'steps', 'workflows', 'components', 'sourceDescriptions'])

/** Parses one whole runtime expression, e.g. `$response.body#/id`. */
/**
 * Parses `text`, once per distinct text: a workflow's expressions are the catalog's, read on every
 * run of every step (bench row 12). The answers are immutable.
 */
export function parseExpression(text: string): ParsedExpression {
  let parsed = parsedExpressions.get(text)
  if (parsed === undefined) {
    parsed = parseExpressionText(text)
    parsedExpressions.set(text, parsed)
  }
  return parsed
}

/** A run reads the same few hundred expressions; past this many the least recently read are parsed again. */
const PARSED_KEPT = 10_000
const parsedExpressions = new LRUCache<string, ParsedExpression>({ max: PARSED_KEPT })

function parseExpressionText(text: string): ParsedExpression {
  if (text.length > MAX_LENGTH) return refuse(`is longer than ${MAX_LENGTH} characters`)
  if (text === '$url' || text === '$method' || text === '$statusCode')
    return { ok: true, expression: { root: text.slice(1) as 'url', text } }
  const match = /^\$(request|response)\.(body|header|query|path)(.*)$/s.exec(text)
  if (match) {
    const [, root, source, rest] = match as unknown as [string, 'request', 'body', string]
    if (source === 'body') {
      if (rest !== '' && !rest.startsWith('#')) return refuse('a body reference is body or body#/pointer')
      const pointer = rest.slice(1)
      if (pointer !== '' && !pointer.startsWith('/')) return refuse('a JSON pointer starts with /')
      if (!validPointer(pointer)) return refuse('the JSON pointer has a ~ not followed by 0 or 1')
      return { ok: true, expression: { root, source, name: pointer, text } }
    }
    const name = rest.slice(1)
    if (!rest.startsWith('.') || !TOKEN.test(name)) return refuse(`$${root}.${source} needs a .name`)
    return { ok: true, expression: { root, source, name, text } }
  }
  const named = /^\$([A-Za-z]+)\.([^#]*)(#.*)?$/s.exec(text)
  if (!named || !ROOTS.has(named[1]!)) return refuse('is not a runtime expression Arazzo defines')
  const root = named[1] as Extract<Expression, { names: unknown }>['root']
  const names = named[2]!.split('.')
  if (names.some((name) => !NAME.test(name)))
    return refuse(`$${root} needs .name, names of letters, digits, _ or -`)
  const pointer = (named[3] ?? '').slice(1)
  if (pointer !== '' && !pointer.startsWith('/')) return refuse('a JSON pointer starts with /')
  if (!validPointer(pointer)) return refuse('the JSON pointer has a ~ not followed by 0 or 1')
  if (root === 'steps' && (names.length < 3 || names[1] !== 'outputs'))
    return refuse('$steps reads $steps.<id>.outputs.<name>')
  if (root === 'workflows' && (names.length < 3 || (names[1] !== 'outputs' && names[1] !== 'inputs')))
    return refuse('$workflows reads $workflows.<id>.inputs.<name> or $workflows.<id>.outputs.<name>')
  return { ok: true, expression: { root, names, pointer, text } }
}

/** A text with `{$expression}` parts: literal pieces and expressions in order. */
export type Template = readonly (string | Expression)[]

/** Splits `Invoice {$inputs.id} is due` into text and expressions; a bad `{$…}` is refused. */
export function parseTemplate(
  text: string,
): { ok: true; template: Template } | { ok: false; message: string } {
  const parts: (string | Expression)[] = []
  let at = 0
  while (at < text.length) {
    const open = text.indexOf('{$', at)
    if (open === -1) break
    const close = text.indexOf('}', open)
    if (close === -1) return refuse(`{$ at ${open} is not closed with }`)
    if (open > at) parts.push(text.slice(at, open))
    const parsed = parseExpression(text.slice(open + 1, close))
    if (!parsed.ok) return refuse(`${text.slice(open, close + 1)} ${parsed.message}`)
    parts.push(parsed.expression)
    at = close + 1
  }
  if (at < text.length) parts.push(text.slice(at))
  return { ok: true, template: parts }
}

/** Every expression a step value holds: a whole-string expression, or those embedded in text. */
export function expressionsIn(value: unknown, found: string[] = [], depth = 0): string[] {
  if (depth > 64) return found
  if (typeof value === 'string') {
    if (isExpressionLike(value) || value.includes('{$')) found.push(value)
  } else if (Array.isArray(value)) for (const item of value) expressionsIn(item, found, depth + 1)
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) expressionsIn(item, found, depth + 1)
  return found
}

/** Checks a value's expressions at load time: the first problem, or undefined. */
export function checkValue(value: string): string | undefined {
  if (isExpressionLike(value)) {
    const parsed = parseExpression(value)
    return parsed.ok ? undefined : `${value.slice(0, 200)} ${parsed.message}`
  }
  const parsed = parseTemplate(value)
  return parsed.ok ? undefined : parsed.message
}

/** `$` and a letter: a whole-string runtime expression (`$5` stays a literal). */
export function isExpressionLike(value: string): boolean {
  return /^\$[A-Za-z]/.test(value)
}

function validPointer(pointer: string): boolean {
  return !/~(?![01])/.test(pointer)
}

function refuse(message: string): { ok: false; message: string } {
  return { ok: false, message }
}
