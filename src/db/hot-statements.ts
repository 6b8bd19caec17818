import { sha256 } from '../lib/crypto.js'
import { driverCode } from './query-errors.js'

/**
 * A hot statement in two builds: `named` (Postgres only) is parsed and planned once per server
 * connection, `unnamed` every time it runs. Parsing and planning the big statements on the busy
 * paths (the redirect's cache-miss loads, the guarded link insert) cost more than running them.
 */
export interface HotStatement<Q> {
  /** null on PGlite (its driver takes no names: `keepPlanned` plans there) or once a pooler lost it */
  named: Q | null
  unnamed: Q
}

/**
 * A named statement's name: its base and a digest of its text. Behind a pooler, an instance of one
 * release may be handed a server connection where an instance of another prepared the statement;
 * under one name for both texts it would run the other's, whose columns drizzle would then map by
 * position. Each text has its own name: a connection holds that text under it, or none (26000, the
 * fallback below).
 */
export function hotName(base: string, text: string): string {
  return `${base}_${sha256(text).slice(0, 12)}`
}

/**
 * SQLSTATEs of a named statement a connection pooler lost or shared: the statement is not on the
 * server connection this client was handed (26000), or another client prepared it there (42P05).
 */
const POOLER_LOST_STATEMENT = new Set(['26000', '42P05'])

/**
 * Runs the named build; a pooler in transaction mode that does not keep named statements per
 * client makes it fail, and then this statement goes back to its unnamed build for good.
 */
export async function runHot<Q, T>(s: HotStatement<Q>, run: (q: Q) => Promise<T>): Promise<T> {
  if (s.named) {
    try {
      return await run(s.named)
    } catch (err) {
      if (!POOLER_LOST_STATEMENT.has(driverCode(err) ?? '')) throw err
      s.named = null
    }
  }
  return run(s.unnamed)
}
