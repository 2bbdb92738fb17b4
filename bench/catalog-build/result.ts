/** What a catalog-build child prints: its build time and its own peak RSS. */
export interface BuildResult {
  readonly ms: number
  /** Tools (toolgate) or functions (@samchon/openapi) produced. */
  readonly tools: number
  /** Error-severity problems (toolgate) or composition errors (@samchon/openapi). */
  readonly errors: number
  /** process.resourceUsage().maxRSS, MB. */
  readonly peakRssMb: number
}

export function report(started: number, tools: number, errors: number): void {
  const result: BuildResult = {
    ms: performance.now() - started,
    tools,
    errors,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }
  process.stdout.write(JSON.stringify(result))
}
