import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { request } from 'undici'
import type { StaticRoute } from '../servers/static-responses.js'
import { BASELINE_ENV, type RowContext } from './context.js'
import { benchScript } from './paths.js'
import { type Started, startScriptServer } from './processes.js'

/** Headers that belong to one response, not to the document: the baseline's server sets its own. */
const PER_RESPONSE = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
])

export interface Captured {
  readonly body: Buffer
  readonly brotli?: Buffer
  readonly etag: string
  readonly contentType: string
  /** The document's headers (CORS, API-Version, Catalog-Version, ETag, Vary …), X-Request-Id included. */
  readonly headers: Readonly<Record<string, string>>
}

interface Answer {
  readonly status: number
  readonly body: Buffer
  readonly headers: Record<string, string>
}

/** A request the harness sends once (capture, correctness pass): a GET, or a POST with a fixed body. */
export interface Ask {
  readonly method?: 'GET' | 'POST'
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return ask(url, { headers })
}

/** One request, its answer read whole. */
export async function ask(url: string, { method = 'GET', headers = {}, body: sent }: Ask): Promise<Answer> {
  const response = await request(url, {
    method,
    headers: { ...headers },
    ...(sent === undefined ? {} : { body: sent }),
  })
  const body = Buffer.from(await response.body.arrayBuffer())
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return { status: response.statusCode, body, headers: flat }
}

/**
 * The gateway's answer to `path`, plain and brotli, exactly as a client receives it; `asked` is a
 * POST's request (MCP: the same JSON-RPC body, id included, that the load sends).
 */
export async function capture(origin: string, path: string, asked: Ask = {}): Promise<Captured> {
  const plain = await ask(origin + path, asked)
  if (plain.status !== 200)
    throw new Error(`${asked.method ?? 'GET'} ${path} answered ${plain.status}: ${plain.body.toString()}`)
  const br = await ask(origin + path, { ...asked, headers: { ...asked.headers, 'accept-encoding': 'br' } })
  const headers = Object.fromEntries(
    Object.entries(plain.headers).filter(([name]) => !PER_RESPONSE.has(name)),
  )
  return {
    body: plain.body,
    ...(br.headers['content-encoding'] === 'br' ? { brotli: br.body } : {}),
    etag: plain.headers.etag ?? '',
    contentType: plain.headers['content-type'] ?? 'application/json',
    headers,
  }
}

/**
 * One route of the static baseline. A POST route (MCP) answers the captured bytes to the same POST;
 * `match` tells several answers of one route apart by a request header (MCP's `Mcp-Method`).
 */
export interface BaselineRoute {
  readonly route: string
  readonly captured: Captured
  readonly method?: 'GET' | 'POST'
  readonly match?: { readonly header: string; readonly value: string }
}

/** Writes the bodies and the route list the static-responses baseline reads; returns the list's path. */
export async function writeStaticRoutes(dir: string, routes: readonly BaselineRoute[]): Promise<string> {
  const list: StaticRoute[] = []
  for (const [i, { route, captured, method, match }] of routes.entries()) {
    const bodyFile = join(dir, `body-${i}`)
    await writeFile(bodyFile, captured.body)
    let brotliFile: string | undefined
    if (captured.brotli) {
      brotliFile = join(dir, `body-${i}.br`)
      await writeFile(brotliFile, captured.brotli)
    }
    list.push({
      route,
      ...(method ? { method } : {}),
      ...(match ? { match } : {}),
      headers: captured.headers,
      contentType: captured.contentType,
      etag: captured.etag,
      bodyFile,
      ...(brotliFile ? { brotliFile } : {}),
    })
  }
  const file = join(dir, 'routes.json')
  await writeFile(file, JSON.stringify(list))
  return file
}

/**
 * Headers whose value belongs to one response: the baseline sends the captured value, of the same
 * length (the rate limit's remaining count has 8 digits for the first 90 million requests).
 * Content-Length and Transfer-Encoding are the framing: the bodies are compared byte for byte, and
 * the MCP SDK writes its answers chunked where bare Fastify sends a length.
 */
const MAY_DIFFER = new Set([
  'date',
  'x-request-id',
  'ratelimit-remaining',
  'ratelimit-reset',
  'content-length',
  'transfer-encoding',
])

/**
 * The correctness pass before any load (gateway.md §4.6: verify bodies apart from the timed
 * runs): same status, bytes and headers from both servers; only per-response values and the
 * framing may differ (MAY_DIFFER).
 */
export async function compareAnswers(
  gateway: string,
  baseline: string,
  path: string,
  headers: Record<string, string>,
  asked: Ask = {},
): Promise<string[]> {
  const sent = { ...asked, headers: { ...asked.headers, ...headers } }
  const [ours, theirs] = await Promise.all([ask(gateway + path, sent), ask(baseline + path, sent)])
  const problems: string[] = []
  const what = `${asked.method ?? 'GET'} ${path} ${JSON.stringify(headers)}`
  if (ours.status !== theirs.status) problems.push(`${what}: status ${ours.status} vs ${theirs.status}`)
  if (!ours.body.equals(theirs.body)) problems.push(`${what}: bodies differ`)
  for (const name of new Set([...Object.keys(ours.headers), ...Object.keys(theirs.headers)])) {
    if (MAY_DIFFER.has(name)) continue
    if (ours.headers[name] !== theirs.headers[name]) {
      problems.push(`${what}: header ${name} ${ours.headers[name]} vs ${theirs.headers[name]}`)
    }
  }
  return problems
}

/** The bare-Fastify baseline of rows 1 and 2: `routes` served exactly as captured from the gateway. */
export async function startStaticBaseline(
  ctx: RowContext,
  name: string,
  routes: readonly BaselineRoute[],
): Promise<Started> {
  const served = join(ctx.tmp, name)
  await mkdir(served, { recursive: true })
  const list = await writeStaticRoutes(served, routes)
  return startScriptServer(
    'bare Fastify',
    benchScript('servers', 'static-responses.js'),
    [list],
    ctx.cpus.server,
    BASELINE_ENV,
  )
}
