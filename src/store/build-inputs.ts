import { createHash } from 'node:crypto'
import type { LastGoodSources, LoadedSource, SourceReader } from '../catalog/index.js'
import { contentHash } from '../util/content-hash.js'
import { type RemoteState, remoteWithoutTokens } from './remote-sources.js'

// A reload that would read exactly what the serving catalog's build read ends before building
// (issue 20: an unchanged reload of Stripe + Kubernetes took 3.2 s re-reading, re-parsing and
// rebuilding both to find the same version). A build records what it read; the next reload reads
// again, hashing only, and compares. The build is a function of what it reads (directory
// listings, each file's bytes or refusal, `$ref`d files included), the remote sources, the last
// good sources it looked up and the store's fixed settings: when all of them match, so would the
// catalog, its problems and its source reports.

/** What one build read, as plain data (it crosses from the build worker). */
export interface BuildInputs {
  /** Each directory listed, with the names the listing gave. */
  readonly listings: readonly (readonly [dir: string, names: readonly string[]])[]
  /** Each file read: its path, the root it had to lie in, and what the read gave (`outcomeOf`). */
  readonly reads: readonly (readonly [path: string, root: string, outcome: string])[]
}

/** A read's outcome as a string: its digest, or the refusal the loader reports; undefined when it cannot be repeated (a timeout). */
function refusalOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code
  if (code === 'source-read-timeout') return undefined
  return `refused:${typeof code === 'string' ? code : ''}:${(err as Error).message}`
}

/** Readers without byte digests are fingerprinted by the text they return. */
const textDigest = (text: string) => `text:${createHash('sha256').update(text).digest('hex')}`

/**
 * The reader a build reads through, recording every listing and read. `inputs()` is undefined
 * when what was read cannot be compared later: a listing failed (the next reload must fail the
 * same way), a read timed out, or one file read twice gave two answers (it changed mid-build).
 */
export function recordingReader(reader: SourceReader): {
  readonly reader: SourceReader
  inputs(): BuildInputs | undefined
} {
  const listings = new Map<string, readonly string[]>()
  const reads = new Map<string, readonly [string, string, string]>()
  let comparable = true
  const record = (path: string, root: string, outcome: string | undefined) => {
    const key = `${root}\0${path}`
    const before = reads.get(key)
    if (outcome === undefined || (before && before[2] !== outcome)) comparable = false
    else reads.set(key, [path, root, outcome])
  }
  return {
    reader: {
      async listFiles(dir) {
        try {
          const names = await reader.listFiles(dir)
          if (listings.has(dir)) comparable = false // the loader lists once; a second listing is not compared
          listings.set(dir, [...names])
          return names
        } catch (err) {
          comparable = false
          throw err
        }
      },
      async readText(path, root) {
        try {
          if (reader.readTextWithDigest) {
            const { text, digest } = await reader.readTextWithDigest(path, root)
            record(path, root, `bytes:${digest}`)
            return text
          }
          const text = await reader.readText(path, root)
          record(path, root, textDigest(text))
          return text
        } catch (err) {
          record(path, root, refusalOf(err))
          throw err
        }
      },
    },
    inputs: () => (comparable ? { listings: [...listings], reads: [...reads.values()] } : undefined),
  }
}

/** What reading `path` now gives, in `recordingReader`'s terms, without keeping the bytes. */
async function outcomeOf(reader: SourceReader, path: string, root: string): Promise<string | undefined> {
  try {
    if (reader.readTextWithDigest && reader.digest) return `bytes:${await reader.digest(path, root)}`
    return textDigest(await reader.readText(path, root))
  } catch (err) {
    return refusalOf(err)
  }
}

/** True when listing and reading again gives what the build got: the same names, the same bytes, the same refusals. */
export async function sameInputs(inputs: BuildInputs, reader: SourceReader): Promise<boolean> {
  for (const [dir, names] of inputs.listings) {
    const now = await reader.listFiles(dir).catch(() => undefined)
    if (!now || now.length !== names.length || now.some((name, i) => name !== names[i])) return false
  }
  const outcomes = await Promise.all(inputs.reads.map(([path, root]) => outcomeOf(reader, path, root)))
  return outcomes.every((outcome, i) => outcome !== undefined && outcome === inputs.reads[i]![2])
}

/**
 * The last good sources as a build sees them, recording what it looked up. `settledIn(next)`
 * holds when the memory the build leaves answers those lookups the same (the same sources, by
 * identity): then the next build, reading the same files, looks up the same and builds the same.
 * It does not hold when, say, a stale file's kept version itself failed and was dropped.
 */
export function recordingLastGood(lastGood: LastGoodSources): LastGoodSources & {
  settledIn(next: ReadonlyMap<string, LoadedSource>): boolean
} {
  const had = new Map<string, boolean>()
  const got = new Map<string, LoadedSource | undefined>()
  return {
    has(id) {
      const answer = lastGood.has(id)
      had.set(id, answer)
      return answer
    },
    get(id) {
      const source = lastGood.get(id)
      got.set(id, source)
      return source
    },
    settledIn(next) {
      for (const [id, answer] of had) if (next.has(id) !== answer) return false
      for (const [id, source] of got) if (next.get(id) !== source) return false
      return true
    },
  }
}

/** The remote sources as the build takes them (tokens never reach it). */
const remoteDigest = (remote: RemoteState) => contentHash(remoteWithoutTokens(remote))

/**
 * A builder's memory of what its last successful build read, and the check a reload makes
 * before building: when it holds, the catalog serving is what the build would make again.
 */
export function createInputsCheck(reader: SourceReader) {
  let last: { readonly remote: string; readonly inputs: BuildInputs } | undefined
  let digested: { readonly remote: RemoteState; readonly digest: string } | undefined
  const digestOf = (remote: RemoteState) => {
    if (digested?.remote !== remote) digested = { remote, digest: remoteDigest(remote) }
    return digested.digest
  }
  return {
    /** True when a build now would get the same remote sources and read the same as the last one. */
    async unchanged(remote: RemoteState): Promise<boolean> {
      if (last === undefined || last.remote !== digestOf(remote)) return false
      return await sameInputs(last.inputs, reader)
    },
    /** After a successful build; `inputs` undefined: the next reload builds. */
    remember(remote: RemoteState, inputs: BuildInputs | undefined): void {
      last = inputs ? { remote: digestOf(remote), inputs } : undefined
    },
  }
}
