import { getHeapSpaceStatistics } from 'node:v8'
import { collectAll } from '../../src/util/collect-garbage.js'

export const MB = 1024 * 1024

/** The young generation's committed size (V8's new space), in bytes. */
export const newSpaceBytes = () =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size

/** Short-lived garbage, enough for V8 to grow the young generation to its largest. */
export function churn() {
  let kept: object[] = []
  for (let i = 0; i < 5_000_000; i++) {
    kept.push({ i })
    if (kept.length > 100_000) kept = []
  }
  return kept.length
}

/** A load: churn, then its promoted leftovers collected, as the old generation's are in time. */
export function load() {
  churn()
  collectAll()
}

/** The smallest young generation seen (sampled every 5 ms) while `work` runs, and what it answered. */
export async function leastNewSpaceDuring<T>(work: () => Promise<T>): Promise<{ least: number; answer: T }> {
  let least = newSpaceBytes()
  const watch = setInterval(() => {
    least = Math.min(least, newSpaceBytes())
  }, 5)
  try {
    const answer = await work()
    return { least: Math.min(least, newSpaceBytes()), answer }
  } finally {
    clearInterval(watch)
  }
}
