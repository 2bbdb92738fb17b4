import { deferredUpfront, renderClaudeDeferred, renderOpenAIDeferred } from './deferred.js'
import { renderMcpTools } from './mcp.js'
import { type OpalOptions, renderOpalDiscovery } from './opal.js'
import { renderClaudeTools, renderOpenAITools } from './openai.js'
import type { ViewRenderer } from './render-views.js'
import { renderToolList } from './tool-list.js'

export { type Budgets, type BudgetWarning, checkBudgets, DEFAULT_BUDGETS } from './budgets.js'
export { countTokens, type TokenCount } from './count-tokens.js'
export {
  type ClaudeDeferredTool,
  deferredUpfront,
  type OpenAIDeferredTool,
  renderClaudeDeferred,
  renderOpenAIDeferred,
} from './deferred.js'
export {
  LATEST_MANIFEST_VERSION,
  MANIFEST_VERSIONS,
  type ManifestVersion,
  renderManifest,
} from './manifest.js'
export {
  conformResult,
  type McpCallResult,
  type McpTool,
  renderCallResult,
  renderMcpTools,
} from './mcp.js'
export { type McpContext, renderMcpContext } from './mcp-context.js'
export { type OpalDiscovery, type OpalOptions, renderOpalDiscovery } from './opal.js'
export {
  type ClaudeTool,
  type OpenAITool,
  renderClaudeTools,
  renderOpenAITools,
  viewTools,
} from './openai.js'
export {
  countTokenSamples,
  type RenderedDocument,
  type RenderedViews,
  renderEager,
  renderViews,
  type ServedSize,
  type TokenJob,
  type TokenSizes,
  type ViewDocuments,
  type ViewRenderer,
  withTokens,
} from './render-views.js'
export {
  CompressedDocument,
  type ContentEncoding,
  type EncodedBytes,
  type Servable,
  ServedDocument,
} from './served-document.js'
export { type ListedTool, renderToolList } from './tool-list.js'

export interface RenderOptions {
  readonly opal: OpalOptions
}

/** Every format the gateway serves a view in; each protocol surface adds its renderer here. */
export function createViewRenderers(options: RenderOptions): ViewRenderer[] {
  return [
    { format: 'tools', served: 'measured', render: renderToolList, counted: false },
    {
      format: 'opal',
      served: 'eager',
      render: (catalog, view) => renderOpalDiscovery(catalog, view, options.opal),
    },
    {
      format: 'openai',
      served: 'eager',
      render: (catalog, view) => renderOpenAITools(catalog, view),
      renderService: (catalog, view, serviceId) => renderOpenAITools(catalog, view, { serviceId }),
    },
    {
      format: 'openai-strict',
      served: 'on-demand',
      render: (catalog, view) => renderOpenAITools(catalog, view, { strict: true }),
      renderService: (catalog, view, serviceId) =>
        renderOpenAITools(catalog, view, { strict: true, serviceId }),
    },
    {
      format: 'claude',
      served: 'eager',
      render: (catalog, view) => renderClaudeTools(catalog, view),
      renderService: (catalog, view, serviceId) => renderClaudeTools(catalog, view, { serviceId }),
    },
    { format: 'mcp', served: 'measured', render: renderMcpTools },
    {
      format: 'openai-deferred',
      served: 'on-demand',
      render: (catalog, view) => renderOpenAIDeferred(catalog, view),
      renderService: (catalog, view, serviceId) => renderOpenAIDeferred(catalog, view, { serviceId }),
      upfront: deferredUpfront,
    },
    {
      format: 'openai-deferred-strict',
      served: 'on-demand',
      render: (catalog, view) => renderOpenAIDeferred(catalog, view, { strict: true }),
      renderService: (catalog, view, serviceId) =>
        renderOpenAIDeferred(catalog, view, { strict: true, serviceId }),
      upfront: deferredUpfront,
    },
    {
      format: 'claude-deferred',
      served: 'on-demand',
      render: (catalog, view) => renderClaudeDeferred(catalog, view),
      renderService: (catalog, view, serviceId) => renderClaudeDeferred(catalog, view, { serviceId }),
      upfront: deferredUpfront,
    },
  ]
}
