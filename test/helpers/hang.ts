/**
 * A hang check, not a speed bound (issue 44): a test given `{ timeout: HANG_BOUND_MS }` fails
 * instead of hanging the run when what it waits for never comes (a deadline that never fires, a
 * backtracking regex, a reload never recorded). It asserts "it answered", never "it answered
 * fast": how fast is a bench figure, measured where the box's load is known.
 */
export const HANG_BOUND_MS = 30_000
