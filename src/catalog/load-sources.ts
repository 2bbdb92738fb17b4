import { isAbsolute, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundleExternalRefs, jsonTextRefsAllLocal } from './bundle-refs.js'
import { type CatalogLimits, countOperations, DEFAULT_CATALOG_LIMITS } from './limits.js'
import { classifyDocument, isJsonFileName, isSpecFileName, parseDocumentText } from './parse-document.js'
import { createProblemSink, type ProblemSink } from './problems.js'
import { SourceReadError } from './source-read-error.js'
import type { Problem } from './types.js'
import { upgradeToOpenApi31 } from './upgrade-document.js'

/** File access for the loader, injected so the core can be tested without a disk. */
export interface SourceReader {
  /** Names of the files directly inside `dir` (links to files included, dot-files excluded), sorted. */
  listFiles(dir: string): Promise<string[]>
  /**
   * The text of a file; `root` is the specs directory it must lie in (a disk reader checks the
   * real path). A refusal it can name throws a SourceReadError carrying the problem code.
   */
  readText(absolutePath: string, root: string): Promise<string>
  /**
   * Optional, for telling an unchanged reload without building it: `readText` with the SHA-256
   * (hex) of the bytes it decoded, from the same read. A reader without it is fingerprinted by
   * the text (two byte strings that decode alike build alike).
   */
  readTextWithDigest?(absolutePath: string, root: string): Promise<{ text: string; digest: string }>
  /**
   * Optional, with `readTextWithDigest`: that digest alone, read with the same checks (the same
   * SourceReadError where `readText` would refuse), the bytes hashed as they come and not kept.
   */
  digest?(absolutePath: string, root: string): Promise<string>
}

/** One source that parsed: OpenAPI documents are already upgraded to 3.1 and bundled. */
export interface LoadedSource {
  /** The file name relative to the specs directory. */
  readonly sourceId: string
  readonly kind: 'openapi' | 'arazzo'
  /** As written: "swagger 2.0", "openapi 3.0.3", "arazzo 1.0.1". */
  readonly format: string
  readonly document: Record<string, unknown>
}

export interface LoadResult {
  readonly sources: readonly LoadedSource[]
  /** Spec files that could not be loaded at all (their problems say why). */
  readonly failed: readonly string[]
  readonly problems: readonly Problem[]
}

/** Reads every spec file directly inside `dir`; one bad file never stops the others. */
export async function loadSpecsDirectory(
  dir: string,
  reader: SourceReader,
  limits: Pick<CatalogLimits, 'operations'> = DEFAULT_CATALOG_LIMITS,
): Promise<LoadResult> {
  const problems: Problem[] = []
  const names = await listOrReport(dir, reader, problems)
  const specNames = names.filter((name) => reportNonSpec(name, problems))
  if (specNames.length === 0 && !hasErrorFor(problems, dir)) {
    createProblemSink(dir, problems).warn(
      'source-empty-directory',
      '',
      `no .yaml, .yml or .json file in ${dir}`,
    )
  }
  const loaded = await Promise.all(
    specNames.map((name) => loadSourceSafely(dir, name, reader, problems, limits)),
  )
  const sources = loaded.filter((source): source is LoadedSource => source !== undefined)
  const failed = specNames.filter((name) => !sources.some((source) => source.sourceId === name))
  return { sources, failed, problems }
}

async function listOrReport(dir: string, reader: SourceReader, problems: Problem[]): Promise<string[]> {
  try {
    return await reader.listFiles(dir)
  } catch (err) {
    createProblemSink(dir, problems).error(
      'source-unreadable',
      '',
      `cannot list ${dir}: ${(err as Error).message}`,
    )
    return []
  }
}

function hasErrorFor(problems: readonly Problem[], file: string): boolean {
  return problems.some((problem) => problem.file === file && problem.severity === 'error')
}

function reportNonSpec(name: string, problems: Problem[]): boolean {
  if (isSpecFileName(name)) return true
  createProblemSink(name, problems).warn(
    'source-not-a-spec-file',
    '',
    'not loaded: only .yaml, .yml and .json files are specs',
  )
  return false
}

/** One file's failure, even an unexpected one (a stack overflow in a library), stays that file's. */
async function loadSourceSafely(
  dir: string,
  name: string,
  reader: SourceReader,
  problems: Problem[],
  limits: Pick<CatalogLimits, 'operations'>,
) {
  try {
    return await loadSource(dir, name, reader, problems, limits)
  } catch (err) {
    createProblemSink(name, problems).error(
      'source-too-complex',
      '',
      `the file could not be processed: ${(err as Error).message}`,
    )
    return undefined
  }
}

async function loadSource(
  dir: string,
  name: string,
  reader: SourceReader,
  problems: Problem[],
  limits: Pick<CatalogLimits, 'operations'>,
): Promise<LoadedSource | undefined> {
  const sink = createProblemSink(name, problems)
  const absolutePath = resolve(dir, name)
  const text = await readOrReport(absolutePath, dir, reader, sink)
  if (text === undefined) return undefined
  const value = parseDocumentText(text, sink)
  if (value === undefined) return undefined
  const kind = classifyDocument(value, sink)
  if (!kind) return undefined
  const document = value as Record<string, unknown>
  if (kind.kind === 'arazzo') return { sourceId: name, kind: 'arazzo', format: kind.format, document }
  if (!withinOperationLimit(document, limits.operations, sink)) return undefined
  // A JSON file's text says at a glance that all its references are local: nothing to bundle.
  const json = isJsonFileName(name)
  const bundled =
    json && jsonTextRefsAllLocal(text)
      ? document
      : await bundleExternalRefs(document, absolutePath, confinedReader(dir, reader), sink)
  // JSON.parse makes a tree that only this function holds: it is upgraded in place, not copied.
  const owned = bundled === document && json
  const upgraded = upgradeToOpenApi31(bundled, sink, { owned })
  if (!upgraded) return undefined
  return { sourceId: name, kind: 'openapi', format: kind.format, document: upgraded }
}

/** Counted before bundling and deriving, the expensive steps a file over the limit never reaches. */
function withinOperationLimit(document: Record<string, unknown>, limit: number, sink: ProblemSink): boolean {
  const operations = countOperations(document)
  if (operations <= limit) return true
  sink.error(
    'source-too-many-operations',
    '/paths',
    `the file declares ${operations} operations, more than limits.operations (${limit}); none of its tools is served: split the file, remove operations, or raise limits.operations`,
  )
  return false
}

async function readOrReport(
  path: string,
  dir: string,
  reader: SourceReader,
  sink: ProblemSink,
): Promise<string | undefined> {
  try {
    return await reader.readText(path, dir)
  } catch (err) {
    if (err instanceof SourceReadError) sink.error(err.code, '', err.message)
    else sink.error('source-unreadable', '', `cannot read the file: ${(err as Error).message}`)
    return undefined
  }
}

/**
 * Referenced files must lie inside the specs directory: a spec cannot make the gateway read
 * /etc/passwd. Checked here on the written path (any reader), and by the disk reader again on
 * the real path (links). Only files: a URL of any other scheme is not fetched.
 */
function confinedReader(dir: string, reader: SourceReader) {
  const root = resolve(dir)
  return async (location: string): Promise<string> => {
    if (/^[a-z][a-z0-9+.-]+:/i.test(location) && !location.startsWith('file:')) {
      throw new SourceReadError(
        'source-outside-directory',
        `${location} is not a file in the specs directory`,
      )
    }
    const path = location.startsWith('file:') ? fileURLToPath(location) : resolve(location)
    const inside = relative(root, path)
    if (inside.startsWith('..' + sep) || inside === '..' || isAbsolute(inside)) {
      throw new SourceReadError('source-outside-directory', `${location} is outside the specs directory`)
    }
    return reader.readText(path, root)
  }
}
