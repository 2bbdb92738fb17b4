import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fromRoot } from './paths.js'

export const CLI = fromRoot('dist', 'src', 'cli', 'index.js')

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI to completion (bounded: a hung process fails the test instead of the run). */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 30_000,
): Promise<Finished> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [code] = (await once(child, 'exit')) as [number | null]
  clearTimeout(timer)
  return { code, stdout, stderr }
}

export interface StartedServer {
  readonly child: ChildProcess
  readonly url: string
  readonly logs: () => string
}

/**
 * Starts `toolgate serve` on a free port and resolves once it logs that it listens: this
 * checkout's build, or another CLI (an installed package's) run from `cwd`.
 */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 20_000,
  { cli = CLI, cwd }: { cli?: string; cwd?: string } = {},
): Promise<StartedServer> {
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  })
  let output = ''
  let started = false
  const append = (chunk: Buffer) => {
    output += chunk
  }
  child.stdout!.on('data', append)
  child.stderr!.on('data', append)
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not start (it must log "Server listening at", an info line):\n${output}`))
    }, timeoutMs)
    // Only until it listens: under load the log grows by megabytes, and nothing needs searching then.
    const onData = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (!match) return
      started = true
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.stderr!.off('data', onData)
      resolve(match[1]!)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      if (!started) reject(new Error(`server exited with ${code}:\n${output}`))
    })
  })
  return { child, url, logs: () => output }
}

/** SIGTERM, then wait for the exit code. */
export async function stopServerProcess(server: StartedServer): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode
  server.child.kill('SIGTERM')
  const [code] = (await once(server.child, 'exit')) as [number | null]
  return code
}
