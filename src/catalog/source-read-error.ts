import type { ProblemCode } from './problems.js'

/** A file a SourceReader refuses for a reason it can name; `code` is the problem the loader reports. */
export class SourceReadError extends Error {
  constructor(
    readonly code: ProblemCode,
    message: string,
  ) {
    super(message)
    this.name = 'SourceReadError'
  }
}
