export { type BuiltRequest, buildRequest, resolveBaseUrl, type UpstreamRequest } from './build-request.js'
export { checkArgumentValues, DEFAULT_ARGUMENT_DEPTH, nestsDeeperThan } from './check-argument-values.js'
export { type BreakerState, type CircuitBreaker, createCircuitBreaker } from './circuit-breaker.js'
export {
  createExecutor,
  DEFAULT_RETRY,
  type ExecutionScope,
  type Executor,
  type ExecutorDeps,
  invalidArguments,
  type ServiceSettings,
  type UpstreamCallRecord,
} from './execute-tool.js'
export type {
  CredentialSource,
  DryRun,
  DryRunOutcome,
  PreviewBody,
  PreviewPart,
  Refusal,
  RequestPreview,
  ToolCall,
  ToolOutcome,
  UpstreamAnswer,
  UpstreamBody,
  Violation,
} from './types.js'
export { createUpstreamClient, type UpstreamClient, type UpstreamClientOptions } from './upstream-client.js'
export { type ArgumentValidator, createArgumentValidator } from './validate-arguments.js'
export {
  type ConformingPart,
  createOutputValidator,
  MAX_LEFT_OUT,
  type OutputValidator,
} from './validate-output.js'
