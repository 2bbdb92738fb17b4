import { type OpalOptions, renderOpalDiscovery } from './opal.js'
import type { ViewRenderer } from './render-views.js'
import { renderToolList } from './tool-list.js'

export { type OpalDiscovery, type OpalOptions, renderOpalDiscovery } from './opal.js'
export {
  measureViews,
  renderViews,
  type ServedSize,
  type ViewDocuments,
  type ViewRenderer,
} from './render-views.js'
export { type ContentEncoding, ServedDocument } from './served-document.js'
export { type ListedTool, renderToolList } from './tool-list.js'

export interface RenderOptions {
  readonly opal: OpalOptions
}

/** Every format the gateway serves a view in; each protocol surface adds its renderer here. */
export function createViewRenderers(options: RenderOptions): ViewRenderer[] {
  return [
    { format: 'tools', render: renderToolList },
    { format: 'opal', render: (catalog, view) => renderOpalDiscovery(catalog, view, options.opal) },
  ]
}
