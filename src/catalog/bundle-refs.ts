import { $RefParser, JSONParserErrorGroup } from '@apidevtools/json-schema-ref-parser'
import { pointerOf } from '../util/json-pointer.js'
import type { ProblemSink } from './problems.js'
import { SourceReadError } from './source-read-error.js'

/** Reads a file by absolute path; the loader decides which paths are allowed. */
export type ReadText = (location: string) => Promise<string>

/** True when some `$ref` in the value points outside the document (`./common.yaml#/…`). */
export function hasExternalRefs(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object') continue
    const ref = (node as { $ref?: unknown }).$ref
    if (typeof ref === 'string' && !ref.startsWith('#')) return true
    // Indexed loops: one cold pass over the whole document, where a for…of allocates per step.
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i]
        if (child !== null && typeof child === 'object') pending.push(child)
      }
      continue
    }
    const keys = Object.keys(node)
    for (let i = 0; i < keys.length; i++) {
      const child = (node as Record<string, unknown>)[keys[i]!]
      if (child !== null && typeof child === 'object') pending.push(child)
    }
  }
  return false
}

/**
 * True when a JSON text can hold no external `$ref`: every `"$ref"` in it is a key whose value is
 * a string starting with `#`. A scan of the text instead of a walk of its tree (GitHub's: 10,460
 * references, 45 MB of objects). Without `\u` escapes in the text, a `$ref` key can only be
 * written `"$ref"`; anything else (an escape anywhere, a `"$ref"` in a value, a `$ref` that is
 * no string) answers false, and the tree is walked (hasExternalRefs).
 */
export function jsonTextRefsAllLocal(text: string): boolean {
  return !UNICODE_ESCAPE.test(text) && !NON_LOCAL_REF.test(text)
}

const UNICODE_ESCAPE = /\\u/
/** A `"$ref"` not followed by `:` and a string starting with `#` (two regex scans: 4–6 ms for GitHub's 13 MB). */
const NON_LOCAL_REF = /"\$ref"(?![ \t\n\r]*:[ \t\n\r]*"#)/

/**
 * Pulls every referenced sibling file into the document so that all `$ref`s become local
 * (json-schema-ref-parser's bundle). Nothing is fetched over the network. A reference that
 * cannot be resolved stays as it is and is reported; the operations using it repair it later.
 */
export async function bundleExternalRefs(
  document: Record<string, unknown>,
  absolutePath: string,
  readText: ReadText,
  sink: ProblemSink,
): Promise<Record<string, unknown>> {
  if (!hasExternalRefs(document)) return document
  const parser = new $RefParser()
  // The library's error keeps only "Error reading file X": remember why each read failed.
  const failures = new Map<string, string>()
  const read = async (file: { url: string }) => {
    try {
      return await readText(file.url)
    } catch (err) {
      const code = err instanceof SourceReadError ? `${err.code}: ` : ''
      failures.set(file.url, `${code}${(err as Error).message}`)
      throw err
    }
  }
  // Every external file goes through readText (`canRead: true` claims every URL, the library's
  // own file resolver never runs; http is off): no other path to the disk or the network.
  const options = {
    continueOnError: true,
    mutateInputSchema: false,
    resolve: {
      external: true,
      http: false,
      file: { order: 1, canRead: true, read },
    },
  }
  try {
    return (await parser.bundle(absolutePath, structuredClone(document), options)) as Record<string, unknown>
  } catch (err) {
    if (!(err instanceof JSONParserErrorGroup)) throw err
    for (const error of err.errors) {
      const reason = [...failures].find(([url]) => error.message.includes(url))?.[1]
      const message = `cannot resolve a reference: ${error.message}${reason ? ` (${reason})` : ''}`
      sink.warn('source-ref-unresolved', pointerOf(...(error.path ?? [])), message)
    }
    return (err.files.schema ?? document) as Record<string, unknown>
  }
}
