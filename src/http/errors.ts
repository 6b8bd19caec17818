import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { driverCode, refusesConnections } from '../db/query-errors.js'
import { messagePage, notFoundPage } from '../lib/html.js'

/**
 * Where a failure is: a field of the input (for links, a `LinkInput` key) and a path inside it
 * (`{key: 'geo', path: [0, 'url']}`). Each interface names the field its own way (nameField), so
 * the writer of the error does not need to know which interface called it.
 */
export interface FieldRef<K extends string = string> {
  key: K
  path?: (string | number)[]
}

/**
 * The one error type. Handlers throw it; errorHandler turns it into `{error: 1, message}`.
 * `fields` names the offending fields as the caller sent them (v1 answers them as `errors`);
 * `field` is set instead by services, whose message is then the bare complaint.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields?: Record<string, string[]>,
    readonly field?: FieldRef,
    /** seconds, sent as `Retry-After` (a 503 the caller should simply repeat later) */
    readonly retryAfter?: number,
  ) {
    super(message)
  }
}

/** A service's complaint about one field of its input: `message` says what is wrong, not where. */
export const fieldError = (status: number, field: FieldRef, message: string) => new ApiError(status, message, undefined, field)

/**
 * A service field error worded for one interface: "<name>: <message>", with `fields` keyed by that
 * name. Any other error passes through unchanged.
 */
export function nameField(err: unknown, nameOf: (field: FieldRef) => string): unknown {
  if (!(err instanceof ApiError) || !err.field) return err
  const name = nameOf(err.field)
  const message = `${name}: ${err.message}`
  return new ApiError(err.status, message, { [name]: [message] })
}

export const badRequest = (message: string, field?: string) =>
  new ApiError(400, message, field ? { [field]: [message] } : undefined)
export const unauthorized = (message = 'A valid API key is required: send Authorization: Bearer <key>.') =>
  new ApiError(401, message)
export const forbidden = (message: string) => new ApiError(403, message)
export const notFound = (message = 'Not found.') => new ApiError(404, message)
export const conflict = (message: string, field?: string) =>
  new ApiError(409, message, field ? { [field]: [message] } : undefined)
export const gone = (message: string) => new ApiError(410, message)

/**
 * The first issue's message, naming its field once: "url: Invalid URL" for zod's own wording; a
 * message already written as "url must …" stays as it is, and one that names only part of a
 * deeper path ("value must …" of targets.0.value, "pixels must …" of pixels.0) gets the whole path
 * in that place, so the caller knows which entry to fix.
 */
export function zodToApiError(err: z.ZodError, status = 400): ApiError {
  const fields: Record<string, string[]> = {}
  for (const issue of err.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : '_'
    ;(fields[key] ??= []).push(issue.message)
  }
  const first = err.issues[0]
  return new ApiError(status, first ? issueMessage(first.path, first.message) : 'Invalid input.', fields)
}

function issueMessage(path: readonly PropertyKey[], message: string): string {
  if (!path.length) return message
  const key = path.map(String).join('.')
  const names = [key, path.findLast((p) => typeof p === 'string'), path[0]].filter((p): p is string => typeof p === 'string')
  const named = names.find((name) => message.startsWith(name) && /^[\s.:[]/.test(message.charAt(name.length)))
  return named === undefined ? `${key}: ${message}` : key + message.slice(named.length)
}

/** Postgres unique violation (both drivers carry SQLSTATE in `code`, sometimes on `cause`). */
export function isUniqueViolation(err: unknown): boolean {
  return driverCode(err) === '23505'
}

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large: the limit is 1 MiB.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type: send application/json (or form-encoded on /api/v1).',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body.',
  FST_ERR_CTP_EMPTY_TYPE: 'Content-Type header is empty.',
  FST_ERR_CTP_INVALID_TYPE: 'Content-Type header is invalid.',
}

/** Network errors of a connection to Postgres that is refused, reset or never answers. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND'])
/** pg and PGlite say these in words only, without a code. */
const CONNECTION_MESSAGES = /^(?:Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end|PGlite is closed)/

/**
 * Whether an error means the database is away (down, restarting, unreachable, closed) rather than a
 * bug or a query it refused: SQLSTATE 57P01/57P02/57P03 (shutting down, crashed, starting), class
 * 08 (connection exception), 53300 (too many connections), a database not accepting connections, a refused or cut connection, a closed pool or PGlite. drizzle wraps
 * driver errors (`cause`), and a refused connect to a name with several addresses is an
 * AggregateError: the whole chain is looked at.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
  const code = typeof e.code === 'string' ? e.code : ''
  if (code === '57P01' || code === '57P02' || code === '57P03' || /^08[0-9A-Z]{3}$/.test(code)) return true
  if (refusesConnections(code, typeof e.message === 'string' ? e.message : undefined)) return true
  if (CONNECTION_CODES.has(code)) return true
  if (typeof e.message === 'string' && CONNECTION_MESSAGES.test(e.message)) return true
  if (Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x, depth + 1))) return true
  return isDatabaseUnavailable(e.cause, depth + 1)
}

/** A restart or failover of Postgres takes seconds: a client retrying sooner only adds load. */
export const DATABASE_RETRY_AFTER = 5
export const DATABASE_UNAVAILABLE = 'The database is not reachable right now; try again shortly.'

/**
 * One warning per 10 s with the number of 503s since the last, not one line per request: during an
 * outage under load that would be thousands of lines saying the same thing. Each request is still in
 * the request log with its status.
 */
const outageLog = { last: 0, since: 0 }
function noteOutage(req: FastifyRequest, err: unknown) {
  outageLog.since++
  const now = Date.now()
  if (now - outageLog.last < 10_000) return
  // the driver's message only: a failed query's own message carries its parameters
  const cause = (err as { cause?: unknown })?.cause ?? err
  req.log.warn({ answered503: outageLog.since, reason: (cause as Error)?.message }, 'database unreachable: answering 503')
  outageLog.last = now
  outageLog.since = 0
}

/** Maps any error to [status, ApiError]; unknown errors become a logged 500. */
export function toApiError(err: unknown, req: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err
  if (err instanceof z.ZodError) return zodToApiError(err)
  if (isDatabaseUnavailable(err)) {
    noteOutage(req, err)
    return new ApiError(503, DATABASE_UNAVAILABLE, undefined, undefined, DATABASE_RETRY_AFTER)
  }
  const e = err as FastifyError & { status?: number }
  const status = e?.statusCode ?? e?.status
  if (status && status >= 400 && status < 500) {
    if (e.code && FASTIFY_MESSAGES[e.code]) return new ApiError(status, FASTIFY_MESSAGES[e.code])
    if (err instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return new ApiError(400, 'Request body is not valid JSON.')
    }
    return new ApiError(status, typeof e.message === 'string' && e.message ? e.message : 'Bad request.')
  }
  req.log.error({ err }, 'unhandled error')
  return new ApiError(500, 'Internal error')
}

/** The interfaces (and the machine endpoints beside them) answer JSON; everything else is a page a browser shows. */
const MACHINE_PATHS = /^\/(?:healthz|readyz|metrics|openapi\.json)(?:[?#]|$)/
/** Whether a path names the interfaces, however a client spelled it (`/API/urls`, `/api%2Furls`): those answer JSON. */
export function isApiPath(url: string): boolean {
  // every short-link visit asks this: a path whose second character is not an a or an l cannot
  // match (no %2f decodes to one), so nearly all are answered without copying the path
  const second = url.charCodeAt(1) | 0x20
  if (second !== 0x61 && second !== 0x6c) return false
  const path = url.replace(/%2f/gi, '/').toLowerCase()
  return path.startsWith('/api/') || /^\/api(?:[?#]|$)/.test(path) || path.startsWith('/links/')
}

/** The link interface v1, whose failures also carry `status` (DECISIONS §8). */
export const isV1Path = (url: string) => url.startsWith('/api/v1/') || url.startsWith('/links/')

export function errorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(err, req)
  if (apiError.retryAfter !== undefined) reply.header('retry-after', apiError.retryAfter)
  // a visitor on a short link, a statistics or campaign page gets a page, not a JSON envelope
  if (apiError.status === 503 && !isApiPath(req.url) && !MACHINE_PATHS.test(req.url)) {
    return messagePage(reply, 503, 'Try again shortly', apiError.message)
  }
  return reply.code(apiError.status).send({ error: 1, message: apiError.message })
}

/**
 * Fastify's router refuses a path before any route sees it: a malformed %-escape (`/%ff`) or a
 * parameter past maxParamLength. On the interfaces that is the contract's `{error: 1, message}`
 * (v1 with its `status`), elsewhere the 404 page: no alias, page or file can have that path.
 */
export function frameworkErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  if (err.code !== 'FST_ERR_BAD_URL' && err.code !== 'FST_ERR_MAX_PARAM_LENGTH') return errorHandler(err, req, reply)
  if (!isApiPath(req.url)) return notFoundPage(reply)
  const [status, message] =
    err.code === 'FST_ERR_BAD_URL'
      ? [400, 'The path holds a malformed %-escape: encode a literal % as %25.']
      : [414, 'The path is too long: no id or alias is that long.']
  return reply.code(status).send(isV1Path(req.url) ? { error: 1, message, status } : { error: 1, message })
}

/** JSON 404 on the interfaces, an HTML page elsewhere (a browser followed a dead link). */
export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  if (isApiPath(req.url)) {
    const body = { error: 1, message: `No route ${req.method} ${req.url.split('?')[0]}.` }
    return reply.code(404).send(isV1Path(req.url) ? { ...body, status: 404 } : body)
  }
  return notFoundPage(reply)
}
