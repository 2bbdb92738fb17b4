import type { CatalogDiff } from '../catalog/index.js'

/** What started a reload: a file event, the periodic check, SIGHUP, or a caller (tests, tools). */
export type ReloadTrigger = 'watch' | 'poll' | 'signal' | 'manual'

/** One reload, as logged, kept in the store's history and served in `/catalog` (SPEC §5). */
export interface ReloadRecord {
  readonly trigger: ReloadTrigger
  readonly startedAt: string
  readonly durationMs: number
  /** `failed`: a source is broken after this reload (it serves its last good version, or nothing), or the reload itself failed. */
  readonly outcome: 'ok' | 'failed'
  /** True when a new catalog version (or new problems) replaced the one serving. */
  readonly swapped: boolean
  readonly previousVersion: string
  readonly catalogVersion: string
  readonly diff: CatalogDiff
  /** Sources broken now that keep serving their last good version. */
  readonly stale: readonly string[]
  /** Sources that contribute nothing: broken with no good version to keep. */
  readonly failed: readonly string[]
  /** Why the reload itself failed; nothing was swapped. */
  readonly error?: string
}
