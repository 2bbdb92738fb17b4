import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { readdir, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { benchScript, GATEWAY_CLI } from './paths.js'
import { SHIPPED } from './shipped.js'

/** Which CPUs each role runs on; `undefined` means unpinned. */
export interface CpuPlan {
  readonly server?: string
  readonly client?: string
  readonly upstream?: string
  readonly note: string
}

/**
 * Server under test alone on CPU 0; load generator (and the upstream on a 2-CPU box) on CPU 1
 * (gateway.md §4.6: pin client and server to separate cores on a 2-vCPU box).
 */
export function planCpus(): CpuPlan {
  const cpus = availableParallelism()
  const taskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0
  if (!taskset) return { note: 'unpinned: taskset not found' }
  if (cpus < 2) return { note: `unpinned: ${cpus} CPU` }
  const upstream = cpus >= 3 ? '2' : '1'
  return {
    server: '0',
    client: '1',
    upstream,
    note: `taskset: server CPU 0, load generator CPU 1, upstream CPU ${upstream} (${cpus} CPUs)`,
  }
}

export interface Started {
  readonly name: string
  readonly child: ChildProcess
  readonly url: string
  /** The last output lines, for error messages. */
  output(): string
}

const running = new Set<ChildProcess>()

/**
 * Spawns `node [nodeFlags…] script args…`, pinned to `cpus` when given; taskset execs, so the pid
 * is node's.
 */
export function spawnNode(
  script: string,
  args: readonly string[],
  options: { cpus: string | undefined; env?: NodeJS.ProcessEnv; nodeFlags?: readonly string[] },
): ChildProcess {
  const command = [process.execPath, ...(options.nodeFlags ?? []), script, ...args]
  const pinned = options.cpus === undefined ? command : ['taskset', '-c', options.cpus, ...command]
  const child = spawn(pinned[0]!, pinned.slice(1), {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

/** Kills the children this harness started (by their pids) — on a crash or Ctrl-C too. */
export function killStarted(): void {
  for (const child of running) child.kill('SIGKILL')
}

export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  server.close()
  if (address === null || typeof address === 'string') throw new Error('no free port')
  return address.port
}

function captureOutput(child: ChildProcess): () => string {
  let tail = ''
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  return () => tail
}

/**
 * `toolgate serve` as the image and `npm start` run it (the Dockerfile's node flags and glibc
 * setting, lib/shipped.ts), on a free port. It logs at warn (the listening line is info), so
 * readiness is /health answering 200.
 */
export async function startGateway(name: string, env: NodeJS.ProcessEnv, cpus: string | undefined) {
  const port = await freePort()
  const child = spawnNode(GATEWAY_CLI, ['serve'], {
    cpus,
    nodeFlags: SHIPPED.nodeFlags,
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      EXAMPLE_UPSTREAM: 'off',
      DRAIN_DELAY: '0',
      ...SHIPPED.env,
      ...env,
    },
  })
  const output = captureOutput(child)
  const url = `http://127.0.0.1:${port}`
  await waitForHealth(url, child, output, name)
  return { name, child, url, output }
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string, name: string) {
  const deadline = Date.now() + 120_000 // a 1,000-tool catalog takes seconds to build on a busy box
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output()}`)
    try {
      const { statusCode, body } = await request(`${url}/health`)
      await body.dump()
      if (statusCode === 200) return
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error(`${name} did not answer /health within 120 s:\n${output()}`)
}

/** A bench server script: it prints `{"url": …}` as its first stdout line once it listens. */
export async function startScriptServer(
  name: string,
  script: string,
  args: readonly string[],
  cpus: string | undefined,
  env: NodeJS.ProcessEnv = {},
): Promise<Started> {
  const child = spawnNode(script, args, { cpus, env })
  const output = captureOutput(child)
  const url = await new Promise<string>((resolve, reject) => {
    let seen = ''
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output()}`)), 30_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = /\{"url":"([^"]+)"\}/.exec(seen)
      if (!match) return
      clearTimeout(timer)
      resolve(match[1]!)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code}:\n${output()}`))
    })
  })
  return { name, child, url, output }
}

/** SIGTERM, then SIGKILL after 5 s. */
export async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null || started.child.signalCode !== null) return
  const exited = once(started.child, 'exit')
  started.child.kill('SIGTERM')
  const timer = setTimeout(() => started.child.kill('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
}

export interface Memory {
  /** Resident set size now, MB. */
  readonly rssMb: number
  /** Peak resident set size, MB. */
  readonly peakMb: number
}

/** VmRSS and VmHWM from /proc/<pid>/status (Linux). */
export async function memoryOf(pid: number): Promise<Memory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 }
}

/** The pids whose parent is `pid` (Linux: each /proc/<pid>/stat's fourth field). */
export async function childPids(pid: number): Promise<number[]> {
  const children: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses, so read after the last `)`.
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid === pid) children.push(Number(entry))
  }
  return children
}

/**
 * A process with its children (the gateway and its catalog build process): the sum of their
 * VmRSS, and each child's own memory. A child that exits between the listing and the reading
 * counts as nothing.
 */
export async function treeMemoryOf(pid: number): Promise<{ rssMb: number; children: Map<number, Memory> }> {
  const own = await memoryOf(pid)
  const children = new Map<number, Memory>()
  for (const child of await childPids(pid)) {
    const memory = await memoryOf(child).catch(() => undefined)
    if (memory && !Number.isNaN(memory.rssMb)) children.set(child, memory)
  }
  let rssMb = own.rssMb
  for (const memory of children.values()) rssMb += memory.rssMb
  return { rssMb, children }
}

/** The rows' upstream (`servers/upstream.ts`): the same small JSON answer to every request, on `cpus`. */
export function startItemsUpstream(cpus: string | undefined): Promise<Started> {
  return startScriptServer('upstream', benchScript('servers', 'upstream.js'), [], cpus)
}
