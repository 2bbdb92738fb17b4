import { fileURLToPath } from 'node:url'

/** The project root, whether this runs from test/ or from dist/test/. */
export const projectRoot = fileURLToPath(
  new URL(import.meta.url.includes('/dist/') ? '../../../' : '../../', import.meta.url),
)

export const fromRoot = (...parts: string[]) => [projectRoot.replace(/\/$/, ''), ...parts].join('/')
