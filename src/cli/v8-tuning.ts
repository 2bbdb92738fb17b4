import { executionAsyncResource } from 'node:async_hooks'
import { setFlagsFromString } from 'node:v8'

/**
 * V8's allocation-site pretenuring off, for the whole process, before anything else runs (issue 20).
 * Under a first burst of pipelined requests on cold code, V8 saw near-100 % survival at request-path
 * allocation sites and decided, for the life of the process, to build their objects straight in
 * the old generation; those died there still pointing at young objects, which every scavenge then
 * kept and promoted (≈ 3.2 MB each), with a mark-compact every 2–3 s: 8 of 10 fresh gateways spent
 * 50–64 µs of CPU per MCP `server/discover` instead of 38–49, for their whole life. With it off,
 * 0 of 10 did. Imported first by the CLI, so every way of starting the gateway runs with it.
 */
setFlagsFromString('--no-allocation-site-pretenuring')

/**
 * One of Node's tick objects, held for the life of the process (issue 20). `process.nextTick`
 * builds each tick as `{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`;
 * V8 records, for each computed key of such a literal, the one hidden class the object had before
 * it, and turns the site megamorphic for good the first time it sees another one — including a
 * fresh copy of the same class after a full collection freed the old (a class nothing alive uses
 * is freed, and the literal's chain of classes with it). The gateway's start runs full
 * collections while `nextTick` is still interpreted (the catalog decoded on the main thread), so
 * its optimized code defined four of the five properties through V8's runtime on every tick: a
 * `/discovery` 304 cost 1.2–1.4× the CPU with a small young generation (1 MB semi-spaces, which is
 * what V8 picks under the manifest's 512Mi limit; more full collections at start). A live tick
 * object keeps its class, and so its whole chain, alive: the sites stay monomorphic and the
 * optimized code defines the properties inline. The tick is this module's own, captured while
 * its callback runs; the queue holds it from the moment it is made.
 */
let keptTick: object | undefined
process.nextTick(() => {
  keptTick = executionAsyncResource()
})

/** The tick object kept alive (read by the test that checks it is one). */
export function keptTickObject(): object | undefined {
  return keptTick
}
