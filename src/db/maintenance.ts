import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'drizzle-orm'
import { startPeriodic } from '../lib/periodic.js'
import { MINUTE } from '../lib/time.js'
import type { Db } from './client.js'

/**
 * PGlite has no autovacuum: nothing reclaims the row versions that every click batch leaves in
 * links, qr_codes, rollups and totals (each counter update writes a new one), and no table is ever
 * analysed, so the planner works from default guesses. This job vacuums and analyses each table of
 * the schema in turn, a few minutes after start and then every MAINTENANCE_INTERVAL. One table per
 * statement: PGlite runs one statement at a time, so a request waits at most for one table's vacuum,
 * not the database's. Postgres runs its own autovacuum and gets no such job.
 */
const MAINTENANCE_INTERVAL = 15 * MINUTE
const FIRST_RUN = 2 * MINUTE

/** Vacuums and analyses every table of the public schema once (until `stop()` says so); answers the tables done. */
export async function vacuumTables(db: Db, stop: () => boolean = () => false): Promise<string[]> {
  const res = await db.execute<{ name: string }>(sql`select relname as name from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace order by relname`)
  const done: string[] = []
  for (const { name } of res.rows) {
    if (stop()) break
    await db.execute(sql`vacuum (analyze) ${sql.identifier(name)}`)
    done.push(name)
  }
  return done
}

/** Starts the job on unref'd timers; returns a stop function (a pass under way finishes its table). */
export function startPgliteMaintenance(db: Db, log: FastifyBaseLogger): () => void {
  return startPeriodic(
    async (stopped) => {
      const t0 = performance.now()
      try {
        const tables = await vacuumTables(db, stopped)
        log.debug({ tables: tables.length, ms: Math.round(performance.now() - t0) }, 'embedded database vacuumed and analysed')
      } catch (err) {
        if (!stopped()) log.warn({ err: (err as Error).message }, 'vacuuming the embedded database failed; trying again at the next interval')
      }
    },
    FIRST_RUN,
    MAINTENANCE_INTERVAL,
  )
}
