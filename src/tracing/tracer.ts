import { trace } from '@opentelemetry/api'
import { PACKAGE_VERSION } from '../version.js'

/**
 * The gateway's tracer. Without a registered SDK (tracing off) it is the API's no-op: its spans
 * record nothing, allocate next to nothing, and inject no header.
 */
export const tracer = trace.getTracer('toolgate', PACKAGE_VERSION)

/** Attribute names of our own, where the OpenTelemetry conventions have none (docs/tracing.md). */
export const ATTR = {
  toolId: 'toolgate.tool.id',
  service: 'toolgate.service.id',
  client: 'toolgate.client.id',
  dryRun: 'toolgate.tool.dry_run',
  approvalRequired: 'toolgate.tool.approval.required',
  approvalGiven: 'toolgate.tool.approval.given',
  outcome: 'toolgate.tool.outcome',
  validationFailures: 'toolgate.tool.validation_failures',
  breakerState: 'toolgate.upstream.breaker.state',
} as const
