import { fsSourceReader } from '../../src/catalog/index.js'
import { type CatalogStore, createCatalogStore } from '../../src/store/index.js'

/** The render options the store tests build with. */
export const render = { opal: { name: 'toolgate', version: '0.0.0', authRequirements: {} } }

/** A store over `dir`, building in-process or in a build process as the server does; closed after the test. */
export async function storeOver(
  t: { after(fn: () => Promise<unknown>): void },
  dir: string,
  builder: 'in-process' | 'process',
): Promise<CatalogStore> {
  const store = await createCatalogStore({
    specsDir: dir,
    ...(builder === 'in-process'
      ? { reader: fsSourceReader }
      : { bounds: { timeoutMs: 30_000, memoryMb: 512 } }),
    options: {},
    render,
  })
  t.after(() => store.close())
  return store
}

/** WeakRefs to the serving snapshot and its catalog, made in a frame of their own so no local keeps them. */
export function watchServing(store: CatalogStore) {
  const snapshot = store.current()
  return { snapshot: new WeakRef(snapshot), catalog: new WeakRef(snapshot.catalog) }
}
