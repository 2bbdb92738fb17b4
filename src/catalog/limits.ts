import { isRecord } from '../util/is-record.js'
import { HTTP_METHODS } from './types.js'

/** Bounds on what one spec file may ask of a catalog build (issue 14: big specs stall the gateway). */
export interface CatalogLimits {
  /** Operations (GET, POST, PUT, PATCH, DELETE) in one spec file; a file over it is not served. */
  readonly operations: number
  /** JSON objects and arrays in one tool's input schema; a tool over it is left out. */
  readonly schemaNodes: number
  /**
   * JSON objects and arrays in one tool's output schema; past it only the top-level properties
   * and their types are described (the tool keeps its typed result, the answer its detail).
   */
  readonly outputSchemaNodes: number
}

export const DEFAULT_CATALOG_LIMITS: CatalogLimits = {
  // GitHub's REST description has 1,223 operations, Kubernetes 1.13's 1,002: 20,000 is far past
  // any API an agent can use, and builds in about 5 s; 103,000 took 14 s and 1.6 GB.
  operations: 20_000,
  // The largest input schema of the real-world corpus (Kubernetes' StatefulSet create) has 1,241
  // nodes and renders to 200 KB; a recursive chain of 5,000 components (kept in $defs, served:
  // test/catalog/load-sources) has about 15,000. 25,000 is twenty times Kubernetes'.
  schemaNodes: 25_000,
  // MCP clients compile every output schema when they list tools (SDK 1.x: Ajv, about 0.1 ms a
  // node), and each one is sent in tools/list: Stripe's responses inline their expandable objects
  // to ~12,400 nodes (760 KB) a tool, Kubernetes' reach 1,864 (200 KB). 500 is the size the
  // executor still compiles (COMPILED_SCHEMA_NODES); 47 % of Kubernetes' and 97 % of GitHub's fit.
  outputSchemaNodes: 500,
}

/** Operations declared inline under `paths` (a `$ref` path item is not followed: it is counted when derived). */
export function countOperations(document: Record<string, unknown>): number {
  const paths = document.paths
  if (!isRecord(paths)) return 0
  let count = 0
  for (const item of Object.values(paths)) {
    if (!isRecord(item)) continue
    for (const method of HTTP_METHODS) if (item[method] !== undefined) count++
  }
  return count
}

/**
 * Objects and arrays in a JSON value, each occurrence counted (a schema inlined twice renders
 * twice); stops counting once past `limit`, so a huge schema costs no more than the limit to judge.
 */
export function countSchemaNodes(value: unknown, limit: number): number {
  let count = 0
  const pending: unknown[] = [value]
  while (pending.length > 0 && count <= limit) {
    const node = pending.pop()
    if (node === null || typeof node !== 'object') continue
    count++
    const children = Object.values(node)
    for (let i = 0; i < children.length; i++) {
      const child = children[i]
      if (child !== null && typeof child === 'object') pending.push(child)
    }
  }
  return count
}
