// The gateway's reload records (GET /catalog/reloads, an operator route that open access lets the
// bench read): what rows 5b and 6b wait for and read `durationMs` from.
import { setTimeout as sleep } from 'node:timers/promises'
import { get } from './capture.js'

/** One record of /catalog/reloads (src/store/types.ts), the fields the bench reads. */
export interface ReloadRecord {
  readonly trigger: string
  readonly startedAt: string
  readonly outcome: string
  readonly swapped: boolean
  readonly durationMs: number
  readonly catalogVersion: string
  readonly diff: { added: string[]; removed: string[]; changed: string[] }
  readonly error?: string
}

/** The gateway's reload history, oldest first (the last 20). */
export async function reloadHistory(origin: string): Promise<ReloadRecord[]> {
  const body = (await get(`${origin}/catalog/reloads`)).body.toString()
  return (JSON.parse(body) as { reloads: ReloadRecord[] }).reloads
}

/** When the latest recorded reload started ('' for none): what nextReload waits past. */
export async function lastReload(origin: string): Promise<string> {
  return (await reloadHistory(origin)).at(-1)?.startedAt ?? ''
}

/**
 * Polls every 20 ms until a reload started after `after` is recorded that `accept`s, and returns
 * it. By start time, not position: the history keeps only the last 20.
 */
export async function nextReload(
  origin: string,
  after: string,
  accept: (record: ReloadRecord) => boolean,
  timeoutMs = 120_000,
): Promise<ReloadRecord> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const record = (await reloadHistory(origin)).find((r) => r.startedAt > after && accept(r))
    if (record) return record
    await sleep(20)
  }
  throw new Error(`no reload recorded within ${timeoutMs / 1_000} s`)
}
