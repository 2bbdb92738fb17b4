import { readFileSync } from 'node:fs'
import { fromRoot } from './paths.js'

/**
 * How the image runs the gateway, read off the Dockerfile so the bench measures what ships:
 * the Node major of `FROM node:<major>…`, the node flags of the last `CMD ["node", <flags…>,
 * <script>, …]`, and the environment its runtime stage sets for the allocator (`MALLOC_*`).
 * `npm start` runs with the same flags and variables (test/deploy holds the two equal).
 */
export interface ShippedRuntime {
  readonly nodeMajor: string | undefined
  readonly nodeFlags: readonly string[]
  readonly env: Readonly<Record<string, string>>
}

export function shippedRuntime(dockerfile = readFileSync(fromRoot('Dockerfile'), 'utf8')): ShippedRuntime {
  const nodeMajor = /^FROM node:(\d+)/m.exec(dockerfile)?.[1]
  const cmd = [...dockerfile.matchAll(/^CMD\s+(\[.*\])\s*$/gm)].at(-1)?.[1]
  const args = cmd ? (JSON.parse(cmd) as string[]) : []
  if (args[0] !== 'node') throw new Error(`Dockerfile: the last CMD does not run node: ${cmd}`)
  const script = args.findIndex((arg, i) => i > 0 && !arg.startsWith('-'))
  if (script < 0) throw new Error(`Dockerfile: the last CMD names no script: ${cmd}`)
  const nodeFlags = args.slice(1, script)
  const env: Record<string, string> = {}
  for (const [, name, value] of dockerfile.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)) env[name!] = value!
  return { nodeMajor, nodeFlags, env }
}

export const SHIPPED = shippedRuntime()
