import { readFileSync } from 'node:fs'

/** The gateway's HTTP API version (SPEC §5 `API-Version` header); the manifest negotiates its own. */
export const API_VERSION = '1.1.0'

/** package.json's version, read once; the compiled file sits at dist/src/version.js. */
export const PACKAGE_VERSION: string = (() => {
  for (const candidate of ['../../package.json', '../package.json']) {
    try {
      return JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')).version as string
    } catch {}
  }
  return '0.0.0'
})()
