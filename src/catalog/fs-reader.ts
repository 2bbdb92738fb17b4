import { createHash } from 'node:crypto'
import { constants, type Stats } from 'node:fs'
import { type FileHandle, open, readdir, readlink, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import type { SourceReader } from './load-sources.js'
import { SourceReadError } from './source-read-error.js'

/** How much of a spec file the reader takes, and for how long (issue 14: no read may hang or flood memory). */
export interface SpecReadLimits {
  /** Largest spec file, in bytes; a larger file is refused before it is read. */
  readonly maxBytes?: number
  /** Bound on one file's whole read (realpath, open, stat, read), in ms. */
  readonly timeoutMs?: number
}

export const DEFAULT_SPEC_BYTES = 64 * 1024 * 1024 // 64 MiB: the largest published specs (Stripe, Kubernetes) are under 8 MiB
export const DEFAULT_READ_TIMEOUT_MS = 5_000 // 5 s: a local or mounted file reads in ms; under Fastify's 10 s plugin timeout at boot

/** O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the real path is what is opened. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0)
const CHUNK_BYTES = 1024 * 1024

/**
 * The disk-backed SourceReader, the one place spec bytes come from disk (top-level files and
 * every `$ref`d file alike). Only regular files whose real path lies inside the real path of
 * the specs directory are read — so Kubernetes' ConfigMap layout (`spec.yaml -> ..data/spec.yaml`,
 * `..data -> ..2026_…`) reads like plain files while a link to `/etc/passwd` or `/dev/zero` does
 * not — at most `maxBytes` of them, within `timeoutMs`. Dot-entries (`..data`) are not listed.
 */
export function createFsSourceReader(limits: SpecReadLimits = {}): Required<SourceReader> {
  const maxBytes = limits.maxBytes ?? DEFAULT_SPEC_BYTES
  const timeoutMs = limits.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS
  const bounded = <T>(path: string, root: string, take: Take<T>) =>
    withTimeout(readConfined(path, root, maxBytes, take), timeoutMs, path)
  return {
    listFiles: listSpecEntries,
    readText: (path, root) => bounded(path, root, textOf),
    readTextWithDigest: (path, root) => bounded(path, root, textAndDigestOf),
    digest: (path, root) => bounded(path, root, digestOf),
  }
}

/** What a read does with a file's chunks, in order, and what it answers at EOF. */
type Take<T> = () => { chunk(bytes: Buffer): void; end(total: number): T }

const textOf: Take<string> = () => {
  const chunks: Buffer[] = []
  return {
    chunk: (bytes) => void chunks.push(bytes),
    // One chunk (the whole file, read into a buffer of its size) is decoded where it lies, not copied.
    end: (total) => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)).toString('utf8'),
  }
}

/** SHA-256 of the bytes as they are read: a 1 MB chunk hashes in about a millisecond. */
const digestOf: Take<string> = () => {
  const hash = createHash('sha256')
  return { chunk: (bytes) => void hash.update(bytes), end: () => hash.digest('hex') }
}

const textAndDigestOf: Take<{ text: string; digest: string }> = () => {
  const text = textOf()
  const digest = digestOf()
  return {
    chunk(bytes) {
      text.chunk(bytes)
      digest.chunk(bytes)
    },
    end: (total) => ({ text: text.end(total), digest: digest.end(total) }),
  }
}

/** The reader with the default limits. */
export const fsSourceReader: SourceReader = createFsSourceReader()

/**
 * Every entry that is not a directory, links followed: a FIFO or a device named `x.yaml` is
 * listed so that reading it reports why it is refused, instead of vanishing without a word.
 * A dangling link is skipped (the kubelet leaves one for a moment when a file is removed).
 */
async function listSpecEntries(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const names: string[] = []
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.isDirectory()) continue
    if (entry.isSymbolicLink()) {
      const target = await stat(join(dir, entry.name)).catch(() => undefined)
      if (!target || target.isDirectory()) continue
    }
    names.push(entry.name)
  }
  return names.sort()
}

async function readConfined<T>(
  path: string,
  root: string | undefined,
  maxBytes: number,
  take: Take<T>,
): Promise<T> {
  const real = await realpath(path)
  if (root !== undefined) await assertInside(real, await realpath(root), path)
  const handle = await open(real, OPEN_FLAGS)
  try {
    if (root !== undefined) await assertStillInside(handle, await realpath(root), path)
    const info = await handle.stat()
    assertRegularFile(info, path, real)
    if (info.size > maxBytes) throw tooLarge(path, `${info.size} bytes`, maxBytes)
    return await readAtMost(handle, maxBytes, path, take, info.size)
  } finally {
    await handle.close()
  }
}

async function assertInside(real: string, realRoot: string, path: string): Promise<void> {
  const inside = relative(realRoot, real)
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new SourceReadError(
      'source-outside-directory',
      `${path} resolves to ${real}, outside the specs directory ${realRoot}; it is not read`,
    )
  }
}

/** Linux names the file an fd really is: a link swapped between realpath and open is caught here. */
async function assertStillInside(handle: FileHandle, realRoot: string, path: string): Promise<void> {
  if (process.platform !== 'linux') return
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
  if (opened !== undefined) await assertInside(opened, realRoot, path)
}

function assertRegularFile(info: Stats, path: string, real: string): void {
  if (info.isFile()) return
  const kind = info.isFIFO()
    ? 'a FIFO (named pipe)'
    : info.isCharacterDevice()
      ? 'a character device'
      : info.isBlockDevice()
        ? 'a block device'
        : info.isSocket()
          ? 'a socket'
          : info.isDirectory()
            ? 'a directory'
            : 'not a regular file'
  const target = real === path ? '' : ` (it resolves to ${real})`
  throw new SourceReadError(
    'source-not-regular-file',
    `${path} is ${kind}${target}; only regular files are read`,
  )
}

/**
 * Reads until EOF but never more than maxBytes + 1: a file that grows after fstat is still bounded.
 * The first buffer holds the size fstat gave plus a byte (to see EOF): a spec is one buffer, read
 * in one call and decoded without a copy (GitHub's 13 MB: 13 reads and a concatenation before).
 */
async function readAtMost<T>(
  handle: FileHandle,
  maxBytes: number,
  path: string,
  take: Take<T>,
  expected: number,
): Promise<T> {
  const taking = take()
  let total = 0
  let chunk = Buffer.allocUnsafe(Math.min(expected, maxBytes) + 1)
  let filled = 0
  while (total <= maxBytes) {
    if (filled === chunk.length) {
      taking.chunk(chunk)
      chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total))
      filled = 0
    }
    const { bytesRead } = await handle.read(chunk, filled, chunk.length - filled, null)
    if (bytesRead === 0) {
      if (filled > 0) taking.chunk(filled === chunk.length ? chunk : chunk.subarray(0, filled))
      return taking.end(total)
    }
    filled += bytesRead
    total += bytesRead
  }
  throw tooLarge(path, `more than ${maxBytes} bytes`, maxBytes)
}

function tooLarge(path: string, size: string, maxBytes: number): SourceReadError {
  return new SourceReadError(
    'source-too-large',
    `${path} holds ${size}, over the limit of ${maxBytes} bytes (limits.specBytes); it is not read`,
  )
}

/**
 * A read that outlives the bound (a stalled network mount) is abandoned and reported; its handle
 * closes when it ends. The bound counts the time the read could have run, not the time this thread
 * spent on other work: files are read and parsed side by side, and a long parse (a 10 MB YAML
 * file on a busy box: seconds) used to let the timer fire before the finished read's callback
 * could run — a spec dropped as `source-read-timeout` for our own stall. The bound is counted in
 * slices of a tenth of it (at most 100 ms); a slice whose timer fires more than a slice late
 * spanned a stall of the event loop and counts for nothing, however many stalls a read meets.
 * (A loop stalled for good is the build's timeout's to stop.)
 */
function withTimeout<T>(work: Promise<T>, timeoutMs: number, path: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    let counted = 0
    const sliceMs = Math.max(1, Math.min(TIMEOUT_SLICE_MS, timeoutMs / TIMEOUT_SLICES))
    const arm = () => {
      const slice = Math.min(sliceMs, timeoutMs - counted)
      const armedAt = performance.now()
      timer = setTimeout(() => {
        const elapsed = performance.now() - armedAt
        if (elapsed <= 2 * slice) counted += Math.min(elapsed, slice)
        // A timer may fire a fraction of a millisecond early: what is left under 1 ms is spent.
        if (timeoutMs - counted >= 1) return arm()
        reject(
          new SourceReadError(
            'source-read-timeout',
            `reading ${path} took longer than ${timeoutMs} ms (limits.readTimeoutMs); it is not read`,
          ),
        )
      }, slice)
    }
    arm()
  })
  work.catch(() => {}) // its failure after the timeout has nobody to tell
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** The read bound is counted in this many slices, each at most TIMEOUT_SLICE_MS. */
const TIMEOUT_SLICES = 10
const TIMEOUT_SLICE_MS = 100
