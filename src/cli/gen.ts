import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type CatalogOptions,
  DISCOVER_VIEW,
  fsSourceReader,
  loadCatalog,
  type SourceReader,
} from '../catalog/index.js'
import type { Catalog } from '../catalog/types.js'
import { renderClaudeTools, renderOpenAITools } from '../formats/index.js'

export interface GeneratedFile {
  readonly name: string
  readonly value: unknown
}

export const DEFAULT_GEN_DIR = 'generated/openai'

/**
 * seed 002's files: `<service>.json` (OpenAI), `<service>.claude.json`, `all.json` and
 * `manifest.json` (version, services, generation time) — the documents the gateway serves.
 */
export function generatedFiles(catalog: Catalog, generatedAt: string): GeneratedFile[] {
  const services = catalog.services.map((service) => ({
    id: service.id,
    alias: service.alias,
    title: service.title,
    tools: renderOpenAITools(catalog, DISCOVER_VIEW, { serviceId: service.id }).length,
    openai: `${service.id}.json`,
    claude: `${service.id}.claude.json`,
  }))
  return [
    ...catalog.services.flatMap((service) => [
      {
        name: `${service.id}.json`,
        value: renderOpenAITools(catalog, DISCOVER_VIEW, { serviceId: service.id }),
      },
      {
        name: `${service.id}.claude.json`,
        value: renderClaudeTools(catalog, DISCOVER_VIEW, { serviceId: service.id }),
      },
    ]),
    { name: 'all.json', value: renderOpenAITools(catalog, DISCOVER_VIEW) },
    { name: 'manifest.json', value: { version: catalog.version, generatedAt, services } },
  ]
}

function text(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** `toolgate gen openai`: writes the files; returns the names written. */
export async function genOpenAI(
  specs: string,
  out: string,
  options: CatalogOptions,
  now = new Date(),
  reader: SourceReader = fsSourceReader,
): Promise<string[]> {
  const catalog = await loadCatalog(specs, reader, options)
  await mkdir(out, { recursive: true })
  const files = generatedFiles(catalog, now.toISOString())
  for (const file of files) await writeFile(join(out, file.name), text(file.value))
  return files.map((file) => file.name)
}

/**
 * `toolgate gen check`: what differs between the files on disk and a fresh generation, the
 * generation time excluded. Empty means fresh.
 */
export async function genCheck(
  specs: string,
  out: string,
  options: CatalogOptions,
  reader: SourceReader = fsSourceReader,
): Promise<string[]> {
  const catalog = await loadCatalog(specs, reader, options)
  const expected = generatedFiles(catalog, '')
  const stale: string[] = []
  for (const file of expected) {
    let onDisk: string
    try {
      onDisk = await readFile(join(out, file.name), 'utf8')
    } catch {
      stale.push(`${file.name}: missing`)
      continue
    }
    const found = file.name === 'manifest.json' ? text(withoutTime(onDisk)) : onDisk
    if (found !== text(file.value)) stale.push(`${file.name}: out of date`)
  }
  const names = new Set(expected.map((file) => file.name))
  const present = await readdir(out).catch(() => [] as string[])
  for (const name of present.filter((n) => n.endsWith('.json') && !names.has(n)))
    stale.push(`${name}: no longer generated`)
  return stale
}

function withoutTime(manifest: string): unknown {
  try {
    return { ...JSON.parse(manifest), generatedAt: '' }
  } catch {
    return manifest
  }
}
