import type { SQL } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import { CASING, type Db, type Tx } from './client.js'

const built = new WeakMap<Db, Map<unknown, unknown>>()

/** What `key` makes for this database, made once; a transaction gets its own each time. */
function once<Q>(db: Db | Tx, key: unknown, make: () => Q): Q {
  if ('rollback' in db) return make()
  let made = built.get(db)
  if (!made) built.set(db, (made = new Map()))
  let query = made.get(key) as Q | undefined
  if (!query) made.set(key, (query = make()))
  return query
}

/**
 * A query built once per database: `build` returns it prepared with placeholders
 * (`.prepare('')`), and each call fills them in. On the API's reads, drizzle's build of a select
 * (its entity checks, column names and SQL text) cost more of Kurz's CPU than running it.
 * Unnamed, so no statement is kept on the server and a pooler in transaction mode stays fine. A
 * transaction gets a build of its own: a query prepared on the pool would run outside it.
 */
export function prepared<Q>(db: Db | Tx, build: (db: Db) => Q): Q {
  return once(db, build, () => build(db as Db))
}

const dialect = new PgDialect({ casing: CASING })

export interface PreparedRows<T> {
  execute(values: Record<string, unknown>): Promise<T[]>
}

/**
 * A raw statement built once per database, as `prepared` builds a select: its rows come back as
 * the driver reads them. drizzle's mapping of a select's rows checks each field of each row, which
 * for a year's daily series cost more than the statement.
 */
export function preparedRows<T>(db: Db | Tx, statement: () => SQL): PreparedRows<T> {
  return once(db, statement, () => {
    const query = db._.session.prepareQuery(dialect.sqlToQuery(statement()), undefined, '', false)
    return { execute: async (values) => ((await query.execute(values)) as { rows: T[] }).rows }
  })
}
