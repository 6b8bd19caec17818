import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'drizzle-orm'
import { startPeriodic } from '../lib/periodic.js'
import { MINUTE } from '../lib/time.js'
import type { Db } from './client.js'

/**
 * PGlite has no autovacuum: nothing reclaims the row versions that every click batch leaves in
 * links, qr_codes, rollups and totals (each counter update writes a new one), and no table is ever
 * analysed, so the planner works from default guesses. This job does autovacuum's work, a few
 * minutes after start and then every MAINTENANCE_INTERVAL: it vacuums or analyses a table when
 * autovacuum's default thresholds say so. PGlite runs one statement at a time and a cache miss or a
 * click batch waits behind this job's, so each table's vacuum and analyse are separate statements,
 * and a table that needs neither costs nothing. Postgres runs its own autovacuum and gets no such job.
 */
const MAINTENANCE_INTERVAL = 15 * MINUTE
const FIRST_RUN = 2 * MINUTE

export interface TableWork {
  name: string
  vacuum: boolean
  analyze: boolean
}

/**
 * What each table needs, by autovacuum's default thresholds (dead rows over 50 + 20 %, rows inserted
 * since the last vacuum over 1,000 + 20 %, rows changed since the last analyse over 50 + 10 %) on
 * the statistics PGlite has counted since it started; it keeps none across a restart, so the first
 * pass of a start also takes a table whose file grew by a tenth since its last vacuum or analyse.
 * A table never vacuumed or analysed (`reltuples` -1) gets both.
 */
async function planWork(db: Db, firstPass: boolean): Promise<TableWork[]> {
  // this connection's counts of its last second reach the view once it is next idle
  await db.execute(sql`select pg_stat_force_next_flush()`)
  const res = await db.execute<{ name: string; never: boolean; grew: boolean; dead: string; inserted: string; changed: string; rows: number }>(sql`
    select c.relname as name, c.reltuples < 0 as never,
      pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.1 + 8 as grew,
      coalesce(s.n_dead_tup, 0) as dead, coalesce(s.n_ins_since_vacuum, 0) as inserted,
      coalesce(s.n_mod_since_analyze, 0) as changed, greatest(c.reltuples, 0) as rows
    from pg_class c left join pg_stat_user_tables s on s.relid = c.oid
    where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace order by c.relname`)
  return res.rows
    .map((t) => {
      const rows = Number(t.rows)
      const grew = firstPass && t.grew
      return {
        name: t.name,
        vacuum: t.never || grew || Number(t.dead) > 50 + 0.2 * rows || Number(t.inserted) > 1_000 + 0.2 * rows,
        analyze: t.never || grew || Number(t.changed) > 50 + 0.1 * rows,
      }
    })
    .filter((t) => t.vacuum || t.analyze)
}

/** One pass: vacuums and analyses the tables that need it, one statement each, until `stop()` says so; answers the work done. */
export async function maintainTables(db: Db, o: { firstPass: boolean; stop?: () => boolean }): Promise<TableWork[]> {
  const stop = o.stop ?? (() => false)
  const work = await planWork(db, o.firstPass)
  const done: TableWork[] = []
  for (const t of work) {
    if (stop()) break
    if (t.vacuum) await db.execute(sql`vacuum ${sql.identifier(t.name)}`)
    if (stop()) break
    if (t.analyze) await db.execute(sql`analyze ${sql.identifier(t.name)}`)
    done.push(t)
  }
  return done
}

/** Starts the job on unref'd timers; returns a stop function (a pass under way finishes its statement). */
export function startPgliteMaintenance(db: Db, log: FastifyBaseLogger): () => void {
  let firstPass = true
  return startPeriodic(
    async (stopped) => {
      const t0 = performance.now()
      try {
        const done = await maintainTables(db, { firstPass, stop: stopped })
        firstPass = false
        log.debug({ tables: done.map((t) => t.name), ms: Math.round(performance.now() - t0) }, 'embedded database vacuumed and analysed where needed')
      } catch (err) {
        if (!stopped()) log.warn({ err }, 'vacuuming the embedded database failed; trying again at the next interval')
      }
    },
    FIRST_RUN,
    MAINTENANCE_INTERVAL,
  )
}
