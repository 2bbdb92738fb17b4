// Row 4, toolgate: loadCatalog over a directory holding just the spec (argv[2]); with argv[3] =
// "render", the OpenAI tool document is rendered from the catalog too, as @samchon/openapi's
// output is. Runs in its own process so its peak RSS is its own.
import { DISCOVER_VIEW, fsSourceReader, loadCatalog } from '../../src/catalog/index.js'
import { renderOpenAITools } from '../../src/formats/index.js'
import { report } from './result.js'

const started = performance.now()
const catalog = await loadCatalog(process.argv[2] ?? '', fsSourceReader)
if (process.argv[3] === 'render') renderOpenAITools(catalog, DISCOVER_VIEW)
const errors = catalog.problems.filter((problem) => problem.severity === 'error').length
report(started, catalog.tools.length, errors)
