import { upgrade } from '@scalar/openapi-parser'
import type { ProblemSink } from './problems.js'

/**
 * Converts Swagger 2.0 and OpenAPI 3.0 to OpenAPI 3.1 with Scalar's upgrader, so that the
 * rest of the catalog reads one dialect: `in: body`/`formData` become request bodies,
 * `nullable` becomes a type union, `definitions` become `components.schemas`.
 */
export function upgradeToOpenApi31(
  document: Record<string, unknown>,
  sink: ProblemSink,
): Record<string, unknown> | undefined {
  if (typeof document.openapi === 'string' && document.openapi.startsWith('3.1')) return document
  try {
    const { specification } = upgrade(structuredClone(document))
    return specification as Record<string, unknown>
  } catch (err) {
    sink.error(
      'source-upgrade-failed',
      '',
      `cannot convert the document to OpenAPI 3.1: ${(err as Error).message}`,
    )
    return undefined
  }
}
