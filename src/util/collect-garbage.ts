import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** V8's `gc()` (see its gc extension): `last-resort` collects until nothing more is freed. */
type Collector = (options?: {
  type?: 'major' | 'minor'
  execution?: 'sync' | 'async'
  flavor?: 'regular' | 'last-resort'
}) => void

/**
 * V8 gives a script its collector only with --expose-gc, a process-wide flag set here, for the
 * context made after it; each thread (the build worker, the main thread) makes its own.
 */
let collector: Collector | undefined
const gc = (): Collector => {
  if (collector) return collector
  setFlagsFromString('--expose-gc')
  collector = runInNewContext('gc') as Collector
  return collector
}

/** A full collection (the build worker between its steps). */
export function collectAll(): void {
  gc()()
}

/**
 * A full collection that also gives V8's spare memory back to the system (issue 20): its
 * `last-resort` flavour is V8's memory-reducing collection, which shrinks the young generation
 * and releases the pages V8 pools for reuse. Node 24's V8 keeps the pages a build freed (the build
 * worker's and the decode's, ≈ 180 MB for Kubernetes' 1,002 tools) until its memory reducer finds
 * the process idle, seconds later, or never under steady load. Node 20 gives them back at once, so
 * there it costs a collection and changes little.
 */
export function releaseMemory(): void {
  gc()({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}
