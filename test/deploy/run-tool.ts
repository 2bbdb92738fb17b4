import { spawn } from 'node:child_process'
import { projectRoot } from '../helpers/paths.js'

export interface ToolResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Both streams, for an assertion message. */
  readonly output: string
}

/** Where each validator comes from, for the message when it is missing (.ci/run installs them). */
const INSTALL_HINTS: Record<string, string> = {
  kubectl: 'apt-get install kubernetes-client (or any kubectl ≥ 1.14, which embeds kustomize)',
  'docker-compose': 'apt-get install docker-compose',
  nginx: 'apt-get install nginx',
  yamllint: 'apt-get install yamllint',
  npm: 'it comes with Node.js',
}

/**
 * Runs a validator to completion, bounded so a hang fails the test. A missing binary throws
 * (never skips): these checks are the point of the test, and .ci/run installs every one of them.
 */
export async function runTool(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<ToolResult> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? projectRoot,
    // nginx lives in /usr/sbin, which a non-login PATH may lack.
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000)
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('close', resolve)
      child.once('error', (err: NodeJS.ErrnoException) => {
        const hint = INSTALL_HINTS[command] ?? 'see .ci/run'
        reject(
          err.code === 'ENOENT'
            ? new Error(`${command} is not installed, and this check needs it: ${hint}`)
            : err,
        )
      })
    })
    return { code, stdout, stderr, output: `$ ${command} ${args.join(' ')}\n${stdout}${stderr}` }
  } finally {
    clearTimeout(timer)
  }
}
