import type { FastifyBaseLogger } from 'fastify'

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type Bindings = Record<string, unknown>
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1]
type MakeChild = (this: FastifyBaseLogger, bindings: Bindings, options?: ChildOptions) => FastifyBaseLogger

/** What pino's loggers answer beyond Fastify's logger interface, kept by the lazy child. */
interface PinoExtras {
  bindings(): Bindings
  setBindings(bindings: Bindings): void
  flush(callback?: (error?: Error) => void): void
}

/** What the parent must answer for a child to be made lazily: pino's level check. */
interface LevelChecking {
  isLevelEnabled(level: string): boolean
}

/**
 * A request's logger whose pino child (its bindings serialized, the request id among them) is
 * made on the first line it writes, not per request: at the production level (warn) a request
 * that logs nothing makes none (issue 20: the child was ≈ 4 % of a 304's CPU). A line it writes
 * is the child's line, bindings, serializers and redaction included.
 */
class LazyChildLogger {
  #made: FastifyBaseLogger | undefined

  readonly #parent: FastifyBaseLogger & LevelChecking
  readonly #bindings: Bindings
  readonly #options: ChildOptions
  readonly #make: MakeChild

  constructor(
    parent: FastifyBaseLogger & LevelChecking,
    bindings: Bindings,
    options: ChildOptions,
    make: MakeChild,
  ) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
    this.#make = make
  }

  #child(): FastifyBaseLogger & PinoExtras {
    this.#made ??= this.#make.call(this.#parent, this.#bindings, this.#options)
    return this.#made as FastifyBaseLogger & PinoExtras
  }

  #write(level: Level, args: unknown[]) {
    if (this.#made) return (this.#made[level] as (...args: unknown[]) => void)(...args)
    if (!this.#parent.isLevelEnabled(level)) return undefined
    return (this.#child()[level] as (...args: unknown[]) => void)(...args)
  }

  get level(): string {
    return this.#made ? this.#made.level : this.#parent.level
  }
  set level(level: string) {
    this.#child().level = level
  }

  fatal(...args: unknown[]) {
    this.#write('fatal', args)
  }
  error(...args: unknown[]) {
    this.#write('error', args)
  }
  warn(...args: unknown[]) {
    this.#write('warn', args)
  }
  info(...args: unknown[]) {
    this.#write('info', args)
  }
  debug(...args: unknown[]) {
    this.#write('debug', args)
  }
  trace(...args: unknown[]) {
    this.#write('trace', args)
  }
  silent() {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#child().child(bindings, options)
  }

  /** pino's own, for code that asks a request's logger what it holds. */
  isLevelEnabled(level: string): boolean {
    const made = this.#made as (FastifyBaseLogger & Partial<LevelChecking>) | undefined
    return made?.isLevelEnabled ? made.isLevelEnabled(level) : this.#parent.isLevelEnabled(level)
  }

  /** pino's: the bindings of this logger and its parents, as its lines carry them. */
  bindings(): Bindings {
    return this.#child().bindings()
  }

  setBindings(bindings: Bindings): void {
    this.#child().setBindings(bindings)
  }

  flush(callback?: (error?: Error) => void): void {
    this.#child().flush(callback)
  }
}

/**
 * Makes the children of Fastify's root logger lazy: `child()` without a level or serializers of
 * its own (a request's, unless its route sets `logLevel` or serializers) answers a logger whose
 * pino child is made when it first writes; anything else gets pino's child at once. pino children
 * inherit from their parent, so theirs are lazy too.
 *
 * Why not Fastify's `childLoggerFactory` option: with any factory but its own, Fastify checks
 * every request's logger for seven methods (`validateLogger`, ≈ 3 % of a 304's CPU, issue 20).
 * Fastify's own factory calls `logger.child(bindings, options)` and skips that check.
 */
export function makeChildrenLazy(root: FastifyBaseLogger): void {
  const parent = root as FastifyBaseLogger & Partial<LevelChecking>
  if (typeof parent.isLevelEnabled !== 'function') return
  const pinoChild: MakeChild = root.child
  root.child = function lazyChild(this: FastifyBaseLogger, bindings: Bindings, options?: ChildOptions) {
    const plain = options?.level === undefined && options?.serializers === undefined
    if (!plain) return pinoChild.call(this, bindings, options)
    return new LazyChildLogger(
      this as FastifyBaseLogger & LevelChecking,
      bindings,
      options,
      pinoChild,
    ) as unknown as FastifyBaseLogger
  }
}
