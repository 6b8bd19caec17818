/**
 * The one client of the JSON API: the session cookie goes by itself, the CSRF token from
 * GET /api/session rides in X-CSRF-Token, and `{error: 1, message}` becomes a thrown ApiError whose
 * message is the API's own sentence (the page shows it as is).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

let csrfToken = ''
export const setCsrfToken = (token: string) => {
  csrfToken = token
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * The sign-in form, returning to this page after (`next`: the server takes only a /dashboard path
 * and checks it again). A session that ended under the app costs a sign-in, not the page.
 */
export function signInPath(): string {
  const here = window.location.pathname + window.location.search
  return here.startsWith('/dashboard/') ? `/login?next=${encodeURIComponent(here)}` : '/login'
}

let leaving = false
/** Once: the page's other requests answering 401 too would each start (and abort) the same navigation. */
function toSignIn() {
  if (leaving) return
  leaving = true
  window.location.assign(signInPath())
}

/**
 * How long a request may take, its body included, before the page says Kurz cannot be reached
 * (a server that accepts the connection and never answers would otherwise keep the page loading).
 */
export const REQUEST_TIMEOUT_MS = 30_000

const UNREACHABLE = 'Kurz cannot be reached: check your connection and try again.'
const TOO_SLOW = `Kurz cannot be reached: it did not answer within ${REQUEST_TIMEOUT_MS / 1000} seconds. Check your connection and try again.`

const unreadable = (status: number) => new ApiError(status, `The server answered ${status} without a readable message. Try again in a moment.`)

export async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  // a page timer rather than AbortSignal.timeout: the page's clock, which a test can move on
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS)
  try {
    let res: Response
    try {
      res = await fetch(path, {
        method,
        credentials: 'same-origin',
        headers: { 'x-csrf-token': csrfToken, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: abort.signal,
      })
    } catch {
      throw new ApiError(0, abort.signal.aborted ? TOO_SLOW : UNREACHABLE)
    }
    let json: any
    try {
      json = await res.json()
    } catch {
      if (abort.signal.aborted) throw new ApiError(0, TOO_SLOW)
      throw unreadable(res.status)
    }
    return answer<T>(res, json)
  } finally {
    clearTimeout(timer)
  }
}

/** The API's answer: its JSON, or its refusal as an ApiError (a 401 also goes to the sign-in form). */
function answer<T>(res: Response, json: any): T {
  if (!res.ok || json?.error === 1 || json?.error === '1') {
    if (res.status === 401) toSignIn()
    throw new ApiError(res.status, typeof json?.message === 'string' ? json.message : `Request failed (${res.status}).`)
  }
  return json as T
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
  put: <T>(path: string, body: unknown = {}) => request<T>('PUT', path, body),
  del: <T = { message: string }>(path: string) => request<T>('DELETE', path),
}

/** Query string from the set values only. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? `?${s}` : ''
}

/**
 * For bodies that are not JSON (CSV exports and imports): the same headers, the Response as is.
 * No time bound of its own (a 20 MiB import may take minutes): `signal` is the page's Cancel. A
 * request that cannot be sent is the same UNREACHABLE ApiError as `request`'s; a cancelled one
 * rejects with fetch's own AbortError, which the page tells apart (`cancelled`).
 */
export async function fetchRaw(method: Method, path: string, body?: Blob, type?: string, signal?: AbortSignal): Promise<Response> {
  let res: Response
  try {
    res = await fetch(path, { method, credentials: 'same-origin', headers: { 'x-csrf-token': csrfToken, ...(type ? { 'content-type': type } : {}) }, body, signal })
  } catch (err) {
    if (signal?.aborted) throw err
    throw new ApiError(0, UNREACHABLE)
  }
  // a refusal is read as `request` reads one (`answer`: its message, and a 401 goes to the sign-in form)
  if (!res.ok) answer(res, await res.json().catch(() => ({})))
  return res
}

/**
 * A fetchRaw answer's body (`res.blob()`, `res.json()`): a connection lost while it comes is the
 * same UNREACHABLE, an answer that is not what it should be says so, the page's Cancel stays itself.
 */
export async function readBody<T>(res: Response, read: (res: Response) => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await read(res)
  } catch (err) {
    if (cancelled(err, signal)) throw err
    if (err instanceof SyntaxError) throw unreadable(res.status)
    throw new ApiError(0, UNREACHABLE)
  }
}

/** Whether `err` is the page's own Cancel (an aborted fetch or body read), not a failure to show. */
export const cancelled = (err: unknown, signal?: AbortSignal) => !!signal?.aborted || (err instanceof DOMException && err.name === 'AbortError')
