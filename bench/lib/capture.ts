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

export async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await request(url, { headers })
  const body = Buffer.from(await response.body.arrayBuffer())
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return { status: response.statusCode, body, headers: flat }
}

/** The gateway's answer to `path`, plain and brotli, exactly as a client receives it. */
export async function capture(origin: string, path: string): Promise<Captured> {
  const plain = await get(origin + path)
  if (plain.status !== 200) throw new Error(`GET ${path} answered ${plain.status}: ${plain.body.toString()}`)
  const br = await get(origin + path, { 'accept-encoding': 'br' })
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

/** Writes the bodies and the route list the static-responses baseline reads; returns the list's path. */
export async function writeStaticRoutes(
  dir: string,
  routes: readonly { route: string; captured: Captured }[],
): Promise<string> {
  const list: StaticRoute[] = []
  for (const [i, { route, captured }] of routes.entries()) {
    const bodyFile = join(dir, `body-${i}`)
    await writeFile(bodyFile, captured.body)
    let brotliFile: string | undefined
    if (captured.brotli) {
      brotliFile = join(dir, `body-${i}.br`)
      await writeFile(brotliFile, captured.brotli)
    }
    list.push({
      route,
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
 * The correctness pass before any load (gateway.md §4.6: verify bodies apart from the timed
 * runs): same status, bytes and headers from both servers; only X-Request-Id may differ.
 */
export async function compareAnswers(
  gateway: string,
  baseline: string,
  path: string,
  headers: Record<string, string>,
): Promise<string[]> {
  const [ours, theirs] = await Promise.all([get(gateway + path, headers), get(baseline + path, headers)])
  const problems: string[] = []
  const what = `${path} ${JSON.stringify(headers)}`
  if (ours.status !== theirs.status) problems.push(`${what}: status ${ours.status} vs ${theirs.status}`)
  if (!ours.body.equals(theirs.body)) problems.push(`${what}: bodies differ`)
  for (const name of new Set([...Object.keys(ours.headers), ...Object.keys(theirs.headers)])) {
    if (name === 'date' || name === 'x-request-id') continue
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
  routes: readonly { route: string; captured: Captured }[],
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
