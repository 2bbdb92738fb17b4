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
 * context made after it; a thread that asks makes its own (the build worker, at its first step).
 */
let collector: Collector | undefined
const gc = (): Collector => {
  if (collector) return collector
  setFlagsFromString('--expose-gc')
  collector = runInNewContext('gc') as Collector
  return collector
}

/**
 * A full collection: the build worker between its steps, and the main thread after a swap
 * (catalog-store.ts), where it pauses every request in flight for the time it takes.
 */
export function collectAll(): void {
  gc()()
}

/**
 * A full collection that also gives V8's spare memory back to the system (issue 20): its
 * `last-resort` flavour is V8's memory-reducing collection, which shrinks the young generation
 * and releases the pages V8 pools for reuse. The build worker runs it before it ends: Node 24's V8
 * pools a dead worker's pages (≈ 80 MB after a Kubernetes build) until its memory reducer finds
 * the main thread idle, seconds later, or never under steady load. Not for the main thread: after
 * it, V8 left the young generation small under load, and a 304 cost 19 % more CPU. Node 20's V8
 * has no such flavour and runs a plain full collection.
 */
export function releaseMemory(): void {
  gc()({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}
