import type { Catalog, PolicyRule } from '../../src/catalog/index.js'
import type { ServiceCredentials } from '../../src/config/secrets.js'
import {
  createArgumentValidator,
  createExecutor,
  createUpstreamClient,
  type DryRunOutcome,
  type ServiceSettings,
  type ToolCall,
  type ToolOutcome,
  type UpstreamClientOptions,
} from '../../src/executor/index.js'

export interface ExecutorSetup {
  readonly services: Record<string, ServiceSettings>
  readonly credentials?: ServiceCredentials
  readonly policies?: readonly PolicyRule[]
  readonly client?: Partial<UpstreamClientOptions>
}

export const TEST_CLIENT: UpstreamClientOptions = {
  connectTimeoutMs: 2_000,
  timeoutMs: 5_000,
  maxResponseBytes: 10 * 1024 * 1024,
  connectionsPerOrigin: 8,
  breaker: { failureThreshold: 5, cooldownMs: 30_000 },
}

/** The framework-free executor over a catalog, with a real undici client; closed after the test. */
export function executorFor(
  t: { after(fn: () => Promise<unknown>): void },
  catalog: Catalog,
  setup: ExecutorSetup,
) {
  const client = createUpstreamClient({ ...TEST_CLIENT, ...setup.client })
  t.after(() => client.close())
  const executor = createExecutor({
    client,
    credentials: setup.credentials ?? {},
    services: setup.services,
    policies: setup.policies ?? [],
    userAgent: 'toolgate-test',
  })
  const validator = createArgumentValidator()
  const prepare = (toolId: string) => {
    const tool = catalog.tools.find((candidate) => candidate.id === toolId || candidate.wireName === toolId)
    if (!tool) throw new Error(`no tool ${toolId}`)
    const service = catalog.services.find((s) => s.id === tool.serviceId)!
    return { tool, scope: { service, validator } }
  }
  const call = (
    toolId: string,
    args: Record<string, unknown>,
    extra: Partial<ToolCall> = {},
  ): Promise<ToolOutcome> => {
    const { tool, scope } = prepare(toolId)
    return executor.execute({ tool, arguments: args, ...extra }, scope)
  }
  /** The executor's dry run of the same call: the request it would send, sent nowhere. */
  const dryRun = (
    toolId: string,
    args: Record<string, unknown>,
    extra: Partial<ToolCall> = {},
  ): Promise<DryRunOutcome> => {
    const { tool, scope } = prepare(toolId)
    return executor.dryRun({ tool, arguments: args, ...extra }, scope)
  }
  return { call, dryRun, client }
}
