import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Catalog, Tool } from '../src/catalog/index.js'
import { errors } from '../src/errors.js'
import { describeReloads, describeSources, listTools } from '../src/explorer/describe-catalog.js'
import { describeTool } from '../src/explorer/describe-tool.js'
import { exampleArguments } from '../src/explorer/example-arguments.js'
import { countTokens, createViewRenderers, ServedDocument } from '../src/formats/index.js'
import { type CatalogSnapshot, renderOptions } from '../src/store/index.js'
import { memoPerOwner } from '../src/util/memo.js'
import { API_VERSION, PACKAGE_VERSION } from '../src/version.js'
import { createDefinitions, SEARCH_FORMATS, searchQuerystring } from './search.js'
import { sendDocument } from './send-document.js'

/**
 * Every asset is the gateway's own (no CDN, no inline script or style): the page works offline and
 * an injected string can run nothing. `connect-src 'self'`: the page talks to this gateway only.
 */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS = {
  'Content-Security-Policy': EXPLORER_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
}

/** Revalidated on every load (ETag → 304): a new gateway version's page is never stale. */
const ASSET_CACHE = 'no-cache'

/** The tool list's search: ranked names, as many as a person scrolls through. */
const SEARCH_LIMIT = 200
const SEARCH_MAX_LIMIT = 500

/** The renderings a tool page shows side by side, in this order. */
const FORMAT_LABELS: Readonly<Record<(typeof SEARCH_FORMATS)[number], string>> = {
  opal: 'Opal',
  openai: 'OpenAI',
  'openai-strict': 'OpenAI strict',
  claude: 'Claude',
  mcp: 'MCP',
}

/** The budget chart's formats: what a whole document costs, and what the deferred ones load up front. */
const BUDGET_FORMATS = {
  full: ['opal', 'openai', 'openai-strict', 'claude', 'mcp'],
  deferred: ['openai-deferred', 'openai-deferred-strict', 'claude-deferred'],
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/** Where the package's files are: dist/plugins/explorer.js → the package root. */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The page's files, read once at start and served as bytes with ETags and brotli/gzip like every
 * other document: `explorer/index.html` and `explorer.css`, the page's modules compiled to
 * `dist/explorer/`, and the schema validator the page checks arguments with (@cfworker/json-schema,
 * the one the executor uses for large schemas). A missing file is a broken install: said at start.
 */
export function loadExplorerAssets(root = PACKAGE_ROOT): Map<string, ServedDocument> {
  const assets = new Map<string, ServedDocument>()
  const add = (name: string, file: string) => {
    const type = CONTENT_TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream'
    assets.set(name, new ServedDocument(undefined, type, { body: readFileSync(file) }))
  }
  add('index.html', join(root, 'explorer', 'index.html'))
  add('explorer.css', join(root, 'explorer', 'explorer.css'))
  const modules = join(root, 'dist', 'explorer')
  const compiled = readdirSync(modules).filter((file) => /^[a-z-]+\.js$/.test(file))
  if (!compiled.includes('app.js')) throw new Error(`explorer: ${modules} has no app.js: run npm run build`)
  for (const file of compiled) add(file, join(modules, file))
  // Its ESM build (the `require` condition would resolve the CommonJS one).
  const validator = join(
    dirname(createRequire(import.meta.url).resolve('@cfworker/json-schema/package.json')),
    'dist',
    'esm',
  )
  for (const file of readdirSync(validator).filter((f) => f.endsWith('.js')))
    add(`vendor/json-schema/${file}`, join(validator, file))
  return assets
}

interface ToolParams {
  Params: { name: string }
}
interface SearchQuery {
  Querystring: { q: string; limit?: number }
}

/**
 * `GET /explorer` (issue 19): the catalog as a page for people — overview, tools, one tool in every
 * format, try it, budgets — and the JSON it reads under `/explorer/api/`. The page and its assets
 * hold no data and are served to anyone; every `/explorer/api/` route is an operator surface (SPEC
 * §8), so in production the page asks for an operator's token before it shows anything.
 */
export default async function explorer(fastify: FastifyInstance) {
  const assets = loadExplorerAssets()
  const renderers = createViewRenderers(renderOptions(fastify.config))
  const definitionOf = createDefinitions(renderers)
  const toolList = memoPerOwner((catalog: Catalog, _key: 'list') => new ServedDocument(listTools(catalog)))
  // Per catalog version and tool, made on the tool page's first visit (tokens counted then).
  const toolPage = memoPerOwner((snapshot: CatalogSnapshot, tool: Tool) => {
    const { catalog } = snapshot
    const service = snapshot.serviceOf(tool)
    const example = exampleArguments(tool.inputSchema)
    const checked = snapshot.validator.check(tool, example)
    return new ServedDocument({
      ...describeTool(catalog, service, tool),
      example,
      exampleValid: checked.ok,
      ...(checked.ok ? {} : { exampleViolations: checked.violations }),
      renderings: SEARCH_FORMATS.map((format) => {
        const definition = definitionOf(catalog, format, tool)
        const json = JSON.stringify(definition)
        return {
          format,
          label: FORMAT_LABELS[format],
          bytes: Buffer.byteLength(json),
          tokens: countTokens(json).tokens,
          definition,
        }
      }),
    })
  })

  fastify.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (prefersHtml(request)) return reply.redirect('/explorer', 303)
    return {
      name: 'toolgate',
      version: PACKAGE_VERSION,
      apiVersion: API_VERSION,
      links: {
        explorer: '/explorer',
        discovery: '/discovery',
        openai: '/openai.json',
        claude: '/claude.json',
        mcp: '/mcp',
        search: '/tools/search?q=',
        catalog: '/catalog',
        health: '/health',
        ready: '/ready',
        version: '/version',
        metrics: '/metrics',
        documentation: '/documentation/json',
      },
    }
  })

  const sendAsset = (request: FastifyRequest, reply: FastifyReply, name: string) => {
    const asset = assets.get(name)
    if (!asset) throw new errors.notFound(request.method, `/explorer/assets/${name.slice(0, 100)}`)
    reply.headers(SECURITY_HEADERS).header('Cache-Control', ASSET_CACHE)
    return sendDocument(request, reply, asset)
  }
  fastify.get('/explorer', { schema: { hide: true } }, (request, reply) =>
    sendAsset(request, reply, 'index.html'),
  )
  fastify.get<{ Params: { '*': string } }>(
    '/explorer/assets/*',
    { schema: { hide: true } },
    (request, reply) => sendAsset(request, reply, request.params['*']),
  )

  const operator = { config: { access: 'operator' as const } }

  fastify.get('/explorer/api/overview', operator, async () => {
    const snapshot = fastify.catalogStore.current()
    const { catalog } = snapshot
    return {
      gateway: { name: 'toolgate', version: PACKAGE_VERSION, apiVersion: API_VERSION },
      catalogVersion: catalog.version,
      loadedAt: snapshot.loadedAt,
      status: fastify.lifecycle.draining ? 'draining' : 'ready',
      access: fastify.access.config.mode,
      counts: {
        services: catalog.services.length,
        tools: catalog.tools.filter((tool) => !tool.ignored).length,
        profiles: Object.keys(catalog.views).length,
        workflows: catalog.workflows.length,
        errors: catalog.problems.filter((p) => p.severity === 'error').length,
        warnings: catalog.problems.filter((p) => p.severity !== 'error').length,
      },
      sources: describeSources(catalog),
      reloads: describeReloads(fastify.catalogStore.history()),
    }
  })

  fastify.get('/explorer/api/tools', operator, async (request, reply) =>
    sendDocument(request, reply, toolList(fastify.catalogStore.current().catalog, 'list')),
  )

  fastify.get<ToolParams>('/explorer/api/tools/:name', operator, async (request, reply) => {
    const snapshot = fastify.catalogStore.current()
    const tool = snapshot.findTool(request.params.name)
    if (!tool) throw new errors.toolNotFound(request.params.name)
    return sendDocument(request, reply, toolPage(snapshot, tool))
  })

  fastify.get<SearchQuery>(
    '/explorer/api/search',
    {
      ...operator,
      schema: { querystring: searchQuerystring(SEARCH_MAX_LIMIT) },
    },
    async (request) => {
      const { q, limit = SEARCH_LIMIT } = request.query
      if (q.trim() === '') throw new errors.searchQueryEmpty()
      const snapshot = fastify.catalogStore.current()
      return {
        query: q,
        catalogVersion: snapshot.catalog.version,
        tools: (await fastify.toolRanker.rank(snapshot.search, snapshot.catalog, q, { limit })).map(
          ({ tool, score }) => ({ name: tool.wireName, score: Math.round(score * 1000) / 1000 }),
        ),
      }
    },
  )

  fastify.get('/explorer/api/budgets', operator, async () => {
    const snapshot = fastify.catalogStore.current()
    await snapshot.tokensSettled
    const { sizes, catalog } = snapshot
    return {
      catalogVersion: catalog.version,
      formats: BUDGET_FORMATS,
      profiles: Object.keys(catalog.views).map((name) => ({ name, sizes: sizes[name] ?? {} })),
    }
  })
}

/** A browser navigating (Accept: text/html first), not an API client asking for JSON. */
function prefersHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  return accept.startsWith('text/html') || (accept.includes('text/html') && !accept.includes('json'))
}
