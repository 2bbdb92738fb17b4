import { SpanStatusCode } from '@opentelemetry/api'
import type { Catalog } from '../catalog/types.js'
import type { ReloadRecord } from '../store/types.js'
import { inActiveSpan, tracer } from './tracer.js'

/** The first catalog build as a span: its version, tool count and errors (or why it failed). */
export async function traceCatalogBuild<T extends { current(): { catalog: Catalog } }>(
  build: () => Promise<T>,
): Promise<T> {
  return inActiveSpan('catalog build', {}, async (span) => {
    const store = await build()
    const { catalog } = store.current()
    span.setAttribute('toolgate.catalog.version', catalog.version)
    span.setAttribute('toolgate.catalog.tools', catalog.tools.length)
    span.setAttribute(
      'toolgate.catalog.errors',
      catalog.problems.filter((problem) => problem.severity === 'error').length,
    )
    return store
  })
}

/**
 * A finished reload as a span over the time it took: trigger, versions, outcome, and the tools
 * added, removed and changed (counted: their IDs are in the log line).
 */
export function recordCatalogReload(record: ReloadRecord): void {
  const start = Date.parse(record.startedAt)
  const span = tracer.startSpan('catalog reload', {
    root: true, // a reload belongs to no request
    startTime: start,
    attributes: {
      'toolgate.catalog.reload.trigger': record.trigger,
      'toolgate.catalog.reload.outcome': record.outcome,
      'toolgate.catalog.reload.swapped': record.swapped,
      'toolgate.catalog.reload.duration_ms': record.durationMs,
      'toolgate.catalog.version': record.catalogVersion,
      'toolgate.catalog.previous_version': record.previousVersion,
      'toolgate.catalog.tools.added': record.diff.added.length,
      'toolgate.catalog.tools.removed': record.diff.removed.length,
      'toolgate.catalog.tools.changed': record.diff.changed.length,
      'toolgate.catalog.sources.stale': record.stale.length,
      'toolgate.catalog.sources.failed': record.failed.length,
    },
  })
  if (record.error) span.setStatus({ code: SpanStatusCode.ERROR })
  span.end(start + record.durationMs)
}
