import type { Db, Tx } from './client.js'

const built = new WeakMap<Db, Map<(db: Db) => unknown, unknown>>()

/**
 * A query built once per database: `build` returns it prepared with placeholders
 * (`.prepare('')`), and each call fills them in. On the API's reads, drizzle's build of a select
 * (its entity checks, column names and SQL text) cost more of Kurz's CPU than running it.
 * Unnamed, so no statement is kept on the server and a pooler in transaction mode stays fine. A
 * transaction gets a build of its own: a query prepared on the pool would run outside it.
 */
export function prepared<Q>(db: Db | Tx, build: (db: Db) => Q): Q {
  if ('rollback' in db) return build(db as unknown as Db)
  let queries = built.get(db)
  if (!queries) built.set(db, (queries = new Map()))
  let query = queries.get(build) as Q | undefined
  if (!query) queries.set(build, (query = build(db)))
  return query
}
