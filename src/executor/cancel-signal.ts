/**
 * A caller's cancellation, as cheap as a flag: what the REST route hands the executor instead of
 * an AbortController (an EventTarget per call, and listeners added and removed per call, cost
 * ≈ 5 % of a tool call's CPU in the profile). MCP still passes the SDK's AbortSignal; the upstream
 * client takes either.
 */
export class CancelSignal {
  aborted = false
  reason: unknown = undefined
  /**
   * The one party told about the cancellation: the upstream call in flight. An object with a
   * method, not a closure: a closure per call, and the call frame it kept, were the largest share
   * of what a tool call left to the old generation under steady load (issue 20).
   */
  stops: Stoppable | undefined = undefined

  abort(reason: unknown = new Error('the caller went away')): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason
    this.stops?.stop(reason)
  }
}

/** What a cancellation stops. */
export interface Stoppable {
  stop(reason: unknown): void
}

/** What may cancel a call: the SDK's AbortSignal (MCP) or a CancelSignal (REST). */
export type CallSignal = AbortSignal | CancelSignal
