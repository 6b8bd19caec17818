import { DrizzleQueryError } from 'drizzle-orm/errors'

/**
 * A failed query's error carries the whole statement and its parameters (drizzle puts both in the
 * message; a Postgres error's `detail` quotes the offending value): URLs, descriptions, password
 * hashes. In a log they become the statement's name ("insert links") and the driver's error code.
 */
export function statementName(sql: string): string {
  const verb = /^\s*(select|insert|update|delete|with|create|alter|drop|truncate)\b/i.exec(sql)?.[1]?.toLowerCase() ?? 'query'
  // a statement led by a CTE is named after the write it makes (the guarded link insert)
  const write = verb === 'with' ? /\b(insert\s+into|update|delete\s+from)\s+"?([A-Za-z_]\w*)"?/i.exec(sql) : null
  if (write) return `${write[1].split(/\s/)[0].toLowerCase()} ${write[2]}`
  const table = /\b(?:from|into|update|table)\s+"?([A-Za-z_][\w]*)"?/i.exec(sql)?.[1]
  return table ? `${verb} ${table}` : verb
}

/**
 * A database error's code: the SQLSTATE of a Postgres or PGlite error, or a connection error's
 * system code (ECONNREFUSED…), on the error itself or, under drizzle's DrizzleQueryError, its cause.
 */
export function driverCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } } | null | undefined
  return e?.code ?? e?.cause?.code
}

/**
 * The server itself refusing new sessions for a while: no connection slot free (53300), or this
 * database closed to connections (`ALTER DATABASE … ALLOW_CONNECTIONS false`, a maintenance window:
 * 55000 is a broad class, so only with that message). Waiting cures both.
 */
export const refusesConnections = (code: string, message: string | undefined) =>
  code === '53300' || (code === '55000' && /not currently accepting connections/.test(message ?? ''))

interface LoggedError {
  type: string
  message: string
  stack?: string
  code?: string
  statement?: string
  constraint?: string
  cause?: LoggedError
}

/** The stack without its first line(s), which repeat the message. */
const frames = (stack: unknown) => (typeof stack === 'string' ? stack.slice(Math.max(0, stack.indexOf('\n    at '))) : undefined)

/** pino's `err` serializer: every error as type, message, stack, code and cause; failed queries without their text. */
export function serializeError(err: unknown, depth = 0): LoggedError | unknown {
  if (!(err instanceof Error)) return err
  const e = err as Error & { code?: unknown; constraint?: unknown; cause?: unknown }
  const out: LoggedError = { type: e.constructor?.name ?? 'Error', message: e.message }
  if (typeof e.code === 'string') out.code = e.code
  if (typeof e.constraint === 'string') out.constraint = e.constraint
  const query = err instanceof DrizzleQueryError ? err.query : typeof (e as { query?: unknown }).query === 'string' ? String((e as { query?: unknown }).query) : null
  if (query !== null) {
    out.statement = statementName(query)
    out.message = `Failed query: ${out.statement}`
    out.stack = `${out.type}: ${out.message}${frames(e.stack) ?? ''}`
  } else {
    out.stack = e.stack
  }
  if (e.cause !== undefined && depth < 3) {
    const cause = serializeError(e.cause, depth + 1) as LoggedError
    // a driver error under a failed query: its code and constraint, never its detail or message's values
    if (query !== null && cause && typeof cause === 'object') out.cause = { type: cause.type, message: cause.code ? `Postgres error ${cause.code}` : 'driver error', code: cause.code, constraint: cause.constraint }
    else out.cause = cause
  }
  return out
}

/** `serializeError` in the shape Fastify's logger option wants. */
export const errSerializer = (err: Error) => serializeError(err) as { type: string; message: string; stack: string }
