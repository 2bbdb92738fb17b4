// A tiny method + path-template router. Each service (tickets, billing) is a list of routes
// under its own prefix; the server asks each in turn.
import type { IncomingMessage } from 'node:http'
import { HttpError, type Reply } from './http-utils.js'

export interface RequestContext {
  req: IncomingMessage
  url: URL
  /** Path parameters, percent-decoded; `%2F` stays inside its segment and never splits it. */
  params: Record<string, string>
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>

/** Throws a 401 HttpError when the request lacks the credential the route needs. */
export type Authenticator = (req: IncomingMessage, url: URL) => void

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Template relative to the service prefix, e.g. `/tickets/:ticketId/comments`. */
  path: string
  /** null for public routes. */
  auth: Authenticator | null
  handle: Handler
}

/** Returns undefined when no route of this service matches the path, so the next service can try. */
export type ServiceHandler = (req: IncomingMessage, url: URL) => Promise<Reply | undefined>

export function createRouter(prefix: string, routes: Route[]): ServiceHandler {
  const compiled = routes.map((route) => ({ route, segments: splitPath(prefix + route.path) }))
  return async (req, url) => {
    const segments = splitPath(url.pathname)
    const matching = compiled
      .map(({ route, segments: template }) => ({ route, params: matchSegments(template, segments) }))
      .filter((m): m is { route: Route; params: Record<string, string> } => m.params !== undefined)
    if (matching.length === 0) return undefined
    const hit = matching.find((m) => m.route.method === req.method)
    if (hit === undefined) {
      const allow = [...new Set(matching.map((m) => m.route.method))].join(', ')
      throw new HttpError(
        405,
        'method_not_allowed',
        `${req.method ?? '?'} is not allowed on ${url.pathname}`,
        undefined,
        { allow },
      )
    }
    hit.route.auth?.(req, url)
    return await hit.route.handle({ req, url, params: hit.params })
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '')
}

function matchSegments(template: string[], actual: string[]): Record<string, string> | undefined {
  if (template.length !== actual.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < template.length; i++) {
    const t = template[i] ?? ''
    const a = actual[i] ?? ''
    if (t.startsWith(':')) {
      const value = decodeSegment(a)
      if (value === undefined) return undefined
      params[t.slice(1)] = value
      continue
    }
    if (t !== a) return undefined
  }
  return params
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
