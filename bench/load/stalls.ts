// The box's own noise: a busy loop on one CPU for argv[2] seconds, recording every gap over 1 ms
// between two clock reads — time the process was not running (other processes, the hypervisor).
// A p99 target in milliseconds cannot be measured below this floor.
import type { StallProbe } from '../lib/load.js'

const seconds = Number(process.argv[2] ?? 1)
const gaps: number[] = []
let last = performance.now()
const end = last + seconds * 1_000
while (last < end) {
  const now = performance.now()
  if (now - last > 1) gaps.push(now - last)
  last = now
}
const output: StallProbe = {
  seconds,
  stalls: gaps.length,
  worstMs: Math.max(0, ...gaps),
  lostMs: gaps.reduce((sum, gap) => sum + gap, 0),
}
process.stdout.write(JSON.stringify(output))
