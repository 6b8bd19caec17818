import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'drizzle-orm'
import { effectivePlanLimit } from '../accounts/effective-plan.js'
import { affected, type Db } from '../db/client.js'
import { startPeriodic } from '../lib/periodic.js'
import { DAY, MINUTE } from '../lib/time.js'

const CHUNK = 10_000

/** Retention days of the plan that applies to the owner (over `users` joined to `plans`); 0 = kept forever. */
const retentionOf = effectivePlanLimit('retention_days')

/** click detail belongs to a link or a QR code, each owned by a user */
const OWNERS = [
  [sql.raw('link_id'), sql.raw('links')],
  [sql.raw('qr_id'), sql.raw('qr_codes')],
] as const

/** The retention periods in force, in days: one for each plan that applies to some user (0, kept for ever, left out). */
async function retentionPeriods(db: Db): Promise<number[]> {
  const res = await db.execute<{ days: number }>(sql`select distinct ${retentionOf} as days from users left join plans on plans.id = users.plan_id where ${retentionOf} > 0`)
  return res.rows.map((r) => Number(r.days))
}

/**
 * Deletes click detail (rows of `clicks` and `click_visitors`) older than the owner's plan
 * retention. Counters and rollups stay, so totals and top lists never change (DECISIONS §6).
 * One retention period at a time, so each statement's cutoff is one date and the BRIN indexes on
 * `clicks.created_at` and `click_visitors.day` (migration 0015) find the old rows; with nothing
 * expired they read a few pages, where a cutoff per owner meant reading both tables whole. Deletes
 * in chunks so a big backlog never holds one huge transaction.
 */
export async function purgeExpiredClicks(db: Db, now: Date = new Date()): Promise<{ clicks: number; visitors: number }> {
  const at = now.toISOString()
  let removedClicks = 0
  let removedVisitors = 0
  for (const days of await retentionPeriods(db)) {
    const cutoff = sql`${at}::timestamptz - make_interval(days => ${days})`
    for (const [col, table] of OWNERS) {
      for (;;) {
        // by ctid (a TID scan): clicks has no index on id (migration 0010), and its rows are never
        // updated. OFFSET 0 keeps the old rows' scan a query of its own, planned on the date alone:
        // joined in, the planner probed every link's index entries instead, 100,000 probes for none
        const res = await db.execute(sql`delete from clicks where ctid = any(array(
            select c.ctid from (select ctid, ${col} from clicks where created_at < ${cutoff} offset 0) c
            join ${table} o on o.id = c.${col}
            join users on users.id = o.user_id
            left join plans on plans.id = users.plan_id
            where ${retentionOf} = ${days}
            limit ${CHUNK}))`)
        const n = affected(res)
        removedClicks += n
        if (n < CHUNK) break
      }
      const res = await db.execute(sql`delete from click_visitors cv
          using ${table} o join users on users.id = o.user_id left join plans on plans.id = users.plan_id
          where cv.day < (${cutoff})::date and cv.${col} = o.id and ${retentionOf} = ${days}`)
      removedVisitors += affected(res)
    }
  }
  // an hour's unique count is final once the hour is over; a week covers clicks replayed late from the spool
  const res = await db.execute(sql`delete from click_visitor_hours where hour < ${at}::timestamptz - interval '7 days'`)
  removedVisitors += affected(res)
  return { clicks: removedClicks, visitors: removedVisitors }
}

/** Runs the purge a minute after start and then daily, on an unref'd timer; returns a stop function. */
export function startRetentionJob(db: Db, log: FastifyBaseLogger): () => void {
  return startPeriodic(
    async () => {
      try {
        const r = await purgeExpiredClicks(db)
        if (r.clicks || r.visitors) log.info(r, 'click retention: expired detail deleted')
      } catch (err) {
        log.warn({ err }, 'click retention purge failed; retrying tomorrow')
      }
    },
    MINUTE,
    DAY,
  )
}
