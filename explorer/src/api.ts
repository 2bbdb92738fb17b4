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

/** Answers asked for ahead of their view (`prefetch`), each taken once by `load`; a new token drops them. */
const early = new Map<string, Promise<Answer<unknown>>>()

/**
 * Starts a GET now for a view that will `load` it: the request and its JSON parse overlap the
 * loading of the view's module instead of following it (bench row 8).
 */
export function prefetch(path: string): void {
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
export async function request<T>(path: string, init: RequestInit = {}): Promise<Answer<T>> {
  const headers = new Headers(init.headers)
  const bearer = token()
  if (bearer) headers.set('authorization', `Bearer ${bearer}`)
  const started = performance.now()
  const response = await fetch(path, { ...init, headers })
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
