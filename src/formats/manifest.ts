import type { Catalog } from '../catalog/types.js'
import { toolDescription } from './opal.js'
import { viewTools } from './openai.js'

/** seed 001 is 1.0.0; 1.1.0 adds per-tool title and annotations and a top-level catalogVersion. */
export const MANIFEST_VERSIONS = ['1.0.0', '1.1.0'] as const
export type ManifestVersion = (typeof MANIFEST_VERSIONS)[number]
export const LATEST_MANIFEST_VERSION: ManifestVersion = '1.1.0'

/** The tool manifest of a view (seed 001 "Response Body"), in the negotiated version. */
export function renderManifest(catalog: Catalog, viewName: string, version: ManifestVersion) {
  const tools = viewTools(catalog, viewName).map((tool) => {
    const base = { name: tool.wireName, description: toolDescription(tool), inputSchema: tool.inputSchema }
    if (version === '1.0.0') return base
    const { readOnly, destructive, idempotent, openWorld } = tool.safety
    return {
      ...base,
      title: tool.title,
      annotations: {
        readOnlyHint: readOnly,
        destructiveHint: destructive,
        idempotentHint: idempotent,
        openWorldHint: openWorld,
      },
    }
  })
  return {
    apiVersion: version,
    toolManifestVersion: version,
    supportedVersions: [...MANIFEST_VERSIONS],
    ...(version === '1.0.0' ? {} : { catalogVersion: catalog.version }),
    tools,
  }
}
