import type { tracing } from '@opentelemetry/sdk-node'

/** ExportResultCode.SUCCESS (@opentelemetry/core): any other result lost the batch. */
const SUCCESS = 0

export interface CountingExporter extends tracing.SpanExporter {
  /** Spans whose export failed: the collector was down, refused them or did not answer in time. */
  dropped(): number
}

/**
 * The OTLP exporter, counting what it loses. The batch processor in front of it bounds the queue
 * (OTEL_BSP_MAX_QUEUE_SIZE) and each export (OTEL_EXPORTER_OTLP_TIMEOUT); a failed batch is not
 * retried past the exporter's own retries, so a collector that is down costs the calls nothing.
 */
export function countingExporter(
  exporter: tracing.SpanExporter,
  onDrop: (spans: number, error: Error | undefined) => void,
): CountingExporter {
  let dropped = 0
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== SUCCESS) {
          dropped += spans.length
          onDrop(spans.length, result.error)
        }
        done(result)
      })
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    dropped: () => dropped,
  }
}
