/** The operator token, for this tab only (sessionStorage: gone when the tab closes). */
const TOKEN_KEY = 'toolgate.explorer.token'

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY)
}

export function setToken(value: string | null): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value)
  else sessionStorage.removeItem(TOKEN_KEY)
  early.clear()
}

/** Where each view's data is: app.ts asks for it before the view's module has loaded. */
export const paths = {
  overview: '/explorer/api/overview',
  tools: '/explorer/api/tools',
  tool: (name: string) => `/explorer/api/tools/${encodeURIComponent(name)}`,
  budgets: '/explorer/api/budgets',
} as const

/** `#/tools/a%20b` → `/tools/a b`; a fragment that is not valid percent-encoding is taken as it is. */
export function currentHash(): string {
  const hash = location.hash.replace(/^#/, '')
  try {
    return decodeURIComponent(hash) || '/'
  } catch {
    return hash
  }
}

/** The document the view of a route (`currentHash()`) shows: app.ts's views, in the same order. */
export function dataPathFor(hash: string): string {
  const tool = /^\/tools\/(.+)$/.exec(hash)
  if (tool) return paths.tool(tool[1]!)
  if (hash.startsWith('/tools')) return paths.tools
  if (hash.startsWith('/budget')) return paths.budgets
  return paths.overview
}

/**
 * The answer asked for ahead of its view (`prefetch`), taken once by `load`; a new token, or
 * another view's prefetch, drops it.
 */
const early = new Map<string, Promise<Answer<unknown>>>()

/**
 * Starts a GET now for a view that will `load` it: the request and its JSON parse overlap the
 * loading of the view's module instead of following it (bench row 8). A GET of the same path
 * already on its way is kept (the first view's, asked for by boot.js).
 */
export function prefetch(path: string): void {
  if (early.has(path)) return
  early.clear()
  const answer = request(path)
  // A failure is the view's to show when it loads this path; until then it is not unhandled.
  answer.catch(() => undefined)
  early.set(path, answer)
}

/** A JSON answer, or the gateway's error `{ error, code }`, with how long it took. */
export interface Answer<T> {
  readonly ok: boolean
  readonly status: number
  readonly body: T
  readonly text: string
  readonly contentType: string
  readonly ms: number
}

/** The gateway's error shape, for an answer that is not ok. */
export interface GatewayError {
  readonly error: string
  readonly code?: string
}

/** Thrown for an answer that is not ok: the page shows its message and, on 401/403, asks for a token. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: GatewayError,
  ) {
    super(body.error)
  }
}

/** Calls the gateway with the token, if one is set; never throws for an HTTP status. */
export function request<T>(path: string, init: RequestInit = {}): Promise<Answer<T>> {
  const headers = new Headers(init.headers)
  const bearer = token()
  if (bearer) headers.set('authorization', `Bearer ${bearer}`)
  const started = performance.now()
  return read(fetch(path, { ...init, headers }), started)
}

async function read<T>(answered: Promise<Response>, started: number): Promise<Answer<T>> {
  const response = await answered
  const text = await response.text()
  const ms = performance.now() - started
  const contentType = response.headers.get('content-type') ?? ''
  let body: unknown = text
  if (contentType.includes('json') && text !== '') {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  return { ok: response.ok, status: response.status, body: body as T, text, contentType, ms }
}

/** GET a JSON document of the explorer API; an error answer throws ApiError. */
export async function load<T>(path: string): Promise<T> {
  const ahead = early.get(path) as Promise<Answer<T>> | undefined
  early.delete(path)
  const answer = await (ahead ?? request<T>(path))
  if (!answer.ok) {
    const body = answer.body as unknown as GatewayError
    throw new ApiError(answer.status, typeof body === 'object' && body ? body : { error: answer.text })
  }
  return answer.body
}

/** The first view's data, asked for by boot.js before any module had arrived (bench row 8). */
interface FirstFetch {
  readonly path: string
  readonly started: number
  readonly response: Promise<Response>
}
const first = (window as { toolgateFirst?: FirstFetch }).toolgateFirst
if (first) {
  delete (window as { toolgateFirst?: FirstFetch }).toolgateFirst
  const answer = read(first.response, first.started)
  answer.catch(() => undefined)
  early.set(first.path, answer)
}
