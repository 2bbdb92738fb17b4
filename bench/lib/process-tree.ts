// A process and its descendants, read from outside through /proc (Linux): what a server holds in
// memory whether it builds in a thread of its own or in a child process.
import { spawnSync } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'

/** One process of the tree: its pid, VmRSS and VmHWM (peak) in MB, and its thread count. */
export interface ProcessMemory {
  readonly pid: number
  readonly rssMb: number
  readonly peakMb: number
  readonly threads: number
}

/** `pid` first, then its descendants (every thread's `children`, recursively); gone ones left out. */
export async function processTree(pid: number): Promise<number[]> {
  const seen: number[] = []
  const pending = [pid]
  while (pending.length > 0) {
    const next = pending.pop()!
    let tasks: string[]
    try {
      tasks = await readdir(`/proc/${next}/task`)
    } catch {
      continue // exited since its parent listed it
    }
    seen.push(next)
    for (const task of tasks) {
      const children = await readFile(`/proc/${next}/task/${task}/children`, 'utf8').catch(() => '')
      for (const child of children.split(' ')) if (child.trim() !== '') pending.push(Number(child))
    }
  }
  return seen
}

/** VmRSS, VmHWM and Threads of /proc/<pid>/status; undefined once the process is gone (or a zombie). */
export async function processMemory(pid: number): Promise<ProcessMemory | undefined> {
  let status: string
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8')
  } catch {
    return undefined
  }
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN)
  const rss = field('VmRSS')
  const peak = field('VmHWM')
  // A process that exited and is not reaped yet (a zombie) has no memory lines: it holds none.
  if (Number.isNaN(rss) || Number.isNaN(peak)) return undefined
  return { pid, rssMb: rss / 1024, peakMb: peak / 1024, threads: field('Threads') }
}

/** Every process of `pid`'s tree that is still there. */
export async function treeMemory(pid: number): Promise<ProcessMemory[]> {
  const all = await Promise.all((await processTree(pid)).map(processMemory))
  return all.filter((memory): memory is ProcessMemory => memory !== undefined)
}

export const totalRssMb = (tree: readonly ProcessMemory[]) => tree.reduce((sum, p) => sum + p.rssMb, 0)
export const totalThreads = (tree: readonly ProcessMemory[]) => tree.reduce((sum, p) => sum + p.threads, 0)

/** Resets the kernel's peak (VmHWM) of `pid` to its current RSS (`5` to clear_refs). */
export async function resetPeak(pid: number): Promise<void> {
  await writeFile(`/proc/${pid}/clear_refs`, '5')
}

/**
 * Samples `pid`'s tree every `intervalMs` until stopped: the highest sum of VmRSS seen at one time
 * (a lower bound of the tree's peak), and every process's last VmHWM seen, kept after it exits
 * (their sum is an upper bound: the processes' peaks need not coincide).
 */
export function sampleTree(pid: number, intervalMs = 20) {
  let sampledMb = 0
  const peaks = new Map<number, number>()
  let current: Promise<void> | undefined
  const sample = async () => {
    const tree = await treeMemory(pid)
    sampledMb = Math.max(sampledMb, totalRssMb(tree))
    for (const process of tree) peaks.set(process.pid, process.peakMb)
  }
  const timer = setInterval(() => {
    // One reading at a time: on a busy box a slow /proc read skips a tick instead of piling up.
    if (current) return
    current = sample()
      .catch(() => {})
      .finally(() => {
        current = undefined
      })
  }, intervalMs)
  return {
    async stop() {
      clearInterval(timer)
      await current
      await sample()
      return { sampledMb, peaks: new Map(peaks) }
    },
  }
}

/** Clock ticks a second, the unit of /proc/<pid>/stat's times (getconf CLK_TCK; 100 on Linux). */
const TICKS = (() => {
  const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })
  const ticks = Number(out.stdout?.trim())
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100
})()

/**
 * CPU seconds `pid` has used, user and system, its threads and its waited-for children included
 * (utime, stime, cutime, cstime of /proc/<pid>/stat), plus what its live descendants have used:
 * a figure the box's other load does not stretch, as it does wall time.
 */
export async function treeCpuSeconds(pid: number): Promise<number> {
  let ticks = 0
  for (const process of await processTree(pid)) {
    const stat = await readFile(`/proc/${process}/stat`, 'utf8').catch(() => '')
    // The fields after the command's closing parenthesis: state is field 3, utime field 14.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const times = fields.slice(11, process === pid ? 15 : 13).map(Number)
    ticks += times.reduce((sum, value) => sum + (Number.isFinite(value) ? value : 0), 0)
  }
  return ticks / TICKS
}
