import { fileURLToPath } from 'node:url'

/** The project root, whether this runs from bench/ or from dist/bench/. */
export const projectRoot = fileURLToPath(
  new URL(import.meta.url.includes('/dist/') ? '../../../' : '../../', import.meta.url),
).replace(/\/$/, '')

export const fromRoot = (...parts: string[]) => [projectRoot, ...parts].join('/')

/** A compiled bench script (children run the JavaScript tsc wrote to dist/bench/). */
export const benchScript = (...parts: string[]) => fromRoot('dist', 'bench', ...parts)

/** The gateway's CLI as `npm start` runs it. */
export const GATEWAY_CLI = fromRoot('dist', 'src', 'cli', 'index.js')
