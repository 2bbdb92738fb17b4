import { parseDocument } from 'yaml'
import { isRecord } from '../util/is-record.js'
import type { ProblemSink } from './problems.js'

export type DocumentKind =
  | {
      readonly kind: 'openapi'
      readonly format: string
      readonly from: 'swagger-2.0' | 'openapi-3.0' | 'openapi-3.1'
    }
  | { readonly kind: 'arazzo'; readonly format: string }

const SPEC_EXTENSION = /\.(ya?ml|json)$/i

export function isSpecFileName(name: string): boolean {
  return SPEC_EXTENSION.test(name)
}

/** True for `*.arazzo.yaml|yml|json` (SPEC §1); such files are read as workflows. */
export function isArazzoFileName(name: string): boolean {
  return /\.arazzo\.(ya?ml|json)$/i.test(name)
}

/** True for `*.json`: read with JSON.parse, which makes a tree (no node shared, unlike YAML aliases). */
export function isJsonFileName(name: string): boolean {
  return name.toLowerCase().endsWith('.json')
}

/** Parses JSON or YAML text into a value; reports where it broke and returns undefined on failure. */
export function parseDocumentText(text: string, sink: ProblemSink): unknown {
  if (isJsonFileName(sink.file)) return parseJson(text, sink)
  return parseYaml(text, sink)
}

function parseJson(text: string, sink: ProblemSink): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    sink.error('source-parse-error', '', `not valid JSON: ${(err as Error).message}`)
    return undefined
  }
}

function parseYaml(text: string, sink: ProblemSink): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: false })
  const first = document.errors[0]
  if (first) {
    const where = first.linePos ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}` : ''
    sink.error('source-parse-error', '', `not valid YAML${where}: ${first.message.split('\n')[0]}`)
    return undefined
  }
  try {
    return document.toJS({ maxAliasCount: 1000 })
  } catch (err) {
    // e.g. "Excessive alias count": a billion-laughs document is refused, not expanded.
    sink.error('source-parse-error', '', `YAML refused: ${(err as Error).message}`)
    return undefined
  }
}

/** Tells an OpenAPI, Swagger or Arazzo document apart and checks its version is one we read. */
export function classifyDocument(value: unknown, sink: ProblemSink): DocumentKind | undefined {
  if (!isRecord(value)) {
    sink.error(
      'source-not-a-document',
      '',
      `expected an OpenAPI, Swagger or Arazzo object, got ${describe(value)}`,
    )
    return undefined
  }
  if ('openapi' in value) return classifyOpenApi(String(value.openapi), sink)
  if ('swagger' in value) return classifySwagger(String(value.swagger), sink)
  if ('arazzo' in value) return classifyArazzo(String(value.arazzo), sink)
  sink.error(
    'source-not-a-document',
    '',
    'no `openapi`, `swagger` or `arazzo` member: this is not an OpenAPI, Swagger or Arazzo document',
  )
  return undefined
}

function classifyOpenApi(version: string, sink: ProblemSink): DocumentKind | undefined {
  if (/^3\.0(\.\d+)?$/.test(version))
    return { kind: 'openapi', format: `openapi ${version}`, from: 'openapi-3.0' }
  if (/^3\.1(\.\d+)?$/.test(version))
    return { kind: 'openapi', format: `openapi ${version}`, from: 'openapi-3.1' }
  sink.error(
    'source-unsupported-version',
    '/openapi',
    `OpenAPI ${version} is not supported (3.0.x and 3.1.x are)`,
  )
  return undefined
}

function classifySwagger(version: string, sink: ProblemSink): DocumentKind | undefined {
  if (version === '2.0') return { kind: 'openapi', format: 'swagger 2.0', from: 'swagger-2.0' }
  sink.error('source-unsupported-version', '/swagger', `Swagger ${version} is not supported (2.0 is)`)
  return undefined
}

function classifyArazzo(version: string, sink: ProblemSink): DocumentKind | undefined {
  if (/^1\.\d+(\.\d+)?$/.test(version)) return { kind: 'arazzo', format: `arazzo ${version}` }
  sink.error('source-unsupported-version', '/arazzo', `Arazzo ${version} is not supported (1.x is)`)
  return undefined
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'an empty document'
  if (Array.isArray(value)) return 'a list'
  return `a ${typeof value}`
}
