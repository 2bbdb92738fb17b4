import type { ViewRenderer } from './measure-views.js'
import { renderToolList } from './tool-list.js'

export { measureViews, type ServedSize, type ViewRenderer } from './measure-views.js'
export { type ListedTool, renderToolList } from './tool-list.js'

/** Every format the gateway serves a view in; each protocol surface adds its renderer here. */
export const VIEW_RENDERERS: readonly ViewRenderer[] = [{ format: 'tools', render: renderToolList }]
