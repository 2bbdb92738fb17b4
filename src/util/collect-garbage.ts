import type { EventLoopUtilization } from 'node:perf_hooks'
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8'
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
 * Whether releaseMemory reduces memory: V8 12 (Node 22) on has gc()'s `last-resort` flavour;
 * Node 20's V8 11.3 ignores it and runs a plain full collection.
 */
export const MEMORY_REDUCING = Number.parseInt(process.versions.v8, 10) >= 12

/**
 * A full collection that also gives V8's spare memory back to the system (issue 20): its
 * `last-resort` flavour is V8's memory-reducing collection, which shrinks the young generation
 * and releases the pages V8 pools for reuse. The build worker runs it before it ends: Node 24's V8
 * pools a dead worker's pages (≈ 80 MB after a Kubernetes build) until its memory reducer finds
 * the main thread idle, seconds later, or never under steady load. It collects until nothing more
 * is freed, two full collections at least: on the main thread, a pause of ≈ 2.5 times a plain one.
 */
export function releaseMemory(): void {
  gc()({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

const MB = 1024 * 1024
/** The main thread's young generation above which it is worth giving back (releaseSpareYoungGeneration). */
const SPARE_YOUNG_BYTES = 8 * MB
/** The main thread's old generation, used, up to which the pause is short enough to take (≈ 150 ms at 33 MB). */
const SPARE_RELEASE_HEAP_BYTES = 64 * MB
/** The event loop's busy share since `since` below which the main thread counts as quiet. */
const QUIET_UTILIZATION = 0.2

/**
 * Gives the main thread's young generation back to the system when a load left it large and the
 * thread is quiet now (its event loop busy under a fifth of the time since `since`), with
 * releaseMemory. A reload's build worker calls it as it starts (catalog-builder.ts; issue 20, row
 * 6b): under the image's `--max-semi-space-size=16` a load grows the young generation to 32 MB,
 * and V8 keeps that until its memory reducer finds the thread idle, 20–60 s later, or never under
 * steady load, so a reload peaked with it under every hump, the worker's and the main thread's. It
 * is one pause of the main thread, 144–206 ms with Kubernetes' 1,002 tools (≈ 33 MB old used),
 * once per reload that builds. Under load it is skipped: there the young generation earns its
 * size, a smaller one costs every request CPU until V8 grows it again, and the pause would hold
 * requests in flight. Skipped too where it would not pay: a young generation already small (a pod
 * that runs V8's own size under 512 MB), an old generation over 64 MB where the pause grows, and
 * Node 20. Returns whether it collected.
 */
export function releaseSpareYoungGeneration(since: EventLoopUtilization): boolean {
  if (!MEMORY_REDUCING || performance.eventLoopUtilization(since).utilization >= QUIET_UTILIZATION)
    return false
  let young = 0
  let old = 0
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space') young = space.space_size
    // What the collection marks: the young generation's garbage (up to 16 MB used) is not.
    else if (space.space_name !== 'new_large_object_space') old += space.space_used_size
  }
  if (young <= SPARE_YOUNG_BYTES || old > SPARE_RELEASE_HEAP_BYTES) return false
  releaseMemory()
  return true
}
