/** The standard variables that name where traces go: one of them set turns tracing on. */
const ENDPOINT_VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const

/**
 * Whether the gateway exports traces (SPEC §10): only when an OTLP endpoint is configured and the
 * SDK is not disabled (`OTEL_SDK_DISABLED=true`, case-insensitive, as the SDK itself reads it,
 * or `OTEL_TRACES_EXPORTER=none`).
 * Without, none of the OpenTelemetry SDK is loaded.
 */
export function isTracingEnabled(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  if (env.OTEL_TRACES_EXPORTER?.split(',').some((name) => name.trim() === 'none')) return false
  return ENDPOINT_VARIABLES.some((name) => (env[name]?.trim() ?? '') !== '')
}
