import { buildCatalog, fsSourceReader, loadSpecsDirectory } from './dist/src/catalog/index.js'
import { createViewRenderers, renderEager } from './dist/src/formats/index.js'
const file = process.argv[2]
const reader = file ? { listFiles: async () => [file], readText: fsSourceReader.readText } : fsSourceReader
const dir = file ? './test/fixtures/real-world' : './specs'
const catalog = buildCatalog(await loadSpecsDirectory(dir, reader))
const renderers = createViewRenderers({ opal: { name: 't', version: '1', authRequirements: {} } }).map((r) => (process.env.NOCOUNT ? { ...r, counted: false } : r))
let t = performance.now()
const { sizes } = renderEager(catalog, renderers)
console.log(file ?? 'shipped', 'renderEager ms', Math.round(performance.now() - t))
console.log(JSON.stringify(sizes.discover))
