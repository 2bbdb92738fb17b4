/** The operator token, for this tab only (sessionStorage: gone when the tab closes). */
const TOKEN_KEY = 'toolgate.explorer.token'

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY)
}

export function setToken(value: string | null): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value)
  else sessionStorage.removeItem(TOKEN_KEY)
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
  const answer = await request<T>(path)
  if (!answer.ok) {
    const body = answer.body as unknown as GatewayError
    throw new ApiError(answer.status, typeof body === 'object' && body ? body : { error: answer.text })
  }
  return answer.body
}
