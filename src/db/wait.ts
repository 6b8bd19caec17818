import { sql } from 'drizzle-orm'
import { createDb, type DbConfig, type DbHandle } from './client.js'
import { driverCode, refusesConnections } from './query-errors.js'

/**
 * Errors that waiting can cure: the server is not up yet or not reachable yet, or refuses sessions
 * for a while (`refusesConnections`, which a running server answers with 503 too).
 */
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', '57P03'])

export class DatabaseUnreachable extends Error {}

/** host:port/name of a Postgres URL, never its user or password */
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`
  } catch {
    return 'the DATABASE_URL host'
  }
}

function reason(err: unknown): { code: string; transient: boolean } {
  // drizzle wraps the driver's error ("Failed query: select 1"): the words that say what to fix are its cause's
  let e = err as { message?: string; cause?: unknown }
  while (e.cause && typeof e.cause === 'object' && typeof (e.cause as { message?: unknown }).message === 'string') e = e.cause as typeof e
  const code = driverCode(err) ?? ''
  // pg reports its own connection timeout without a code
  const timedOut = /timeout|terminated/i.test(e.message ?? '')
  const refusedByServer = refusesConnections(code, e.message)
  const transient = TRANSIENT.has(code) || refusedByServer || (!code && timedOut)
  // a non-transient error's message says what to fix ("password authentication failed for user …"),
  // and the server's own refusal is worded better than its code
  const detail = transient && !refusedByServer ? code || 'timeout' : (e.message ?? code ?? 'unknown error').split('\n')[0]
  return { code: detail, transient }
}

/**
 * Opens the database, waiting for a Postgres that is not reachable yet (a container starting
 * beside this one): one line per attempt through `say`, then DatabaseUnreachable after `waitMs`.
 * An error waiting cannot cure (a wrong password, a missing database) fails at once.
 */
export async function openDatabase(config: DbConfig, say: (line: string) => void, waitMs = 30_000, everyMs = 2_000): Promise<DbHandle> {
  const handle = await createDb(config)
  if (config.kind === 'pglite') return handle
  const where = describeDatabase(config.url)
  const deadline = Date.now() + waitMs
  for (let attempt = 1; ; attempt++) {
    try {
      await handle.db.execute(sql`select 1`)
      return handle
    } catch (err) {
      const { code, transient } = reason(err)
      const left = deadline - Date.now()
      if (!transient || left <= 0) {
        await handle.close().catch(() => {})
        const why = transient ? `not reachable after ${Math.round(waitMs / 1000)} s (${code})` : `refused the connection (${code})`
        throw new DatabaseUnreachable(`Cannot use the database at ${where}: ${why}. Check DATABASE_URL.`)
      }
      say(`Database at ${where} not reachable (${code}), attempt ${attempt}; retrying for ${Math.ceil(left / 1000)} s more`)
      await new Promise((r) => setTimeout(r, Math.min(everyMs, left)))
    }
  }
}
