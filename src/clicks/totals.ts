import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { driverCode } from '../db/query-errors.js'
import { clickTotalsThrough } from '../db/schema/index.js'
import { toDay } from '../http/format.js'
import { startPeriodic } from '../lib/periodic.js'
import { DAY, MINUTE } from '../lib/time.js'

/*
 * A click batch writes a row per subject, day and visitor profile (click_profiles, migration 0012),
 * and this job moves each finished UTC day's profiles into the rollups, one row per dimension and
 * label, and into the totals: click_totals holds the sums of the rollups up to click_totals_through's
 * day (migration 0011). A late click of a day already folded (a spool replay after midnight) waits
 * in click_profiles for the next run. All-time statistics read the totals, the rollups after that
 * day and the profiles (stats.ts), so a fold never changes what they answer.
 */

/** The advisory lock of migration 0011: click batches and link deletes take it shared, the fold alone. */
export const TOTALS_LOCK = 72_801_312

/** How long the fold waits for the batches under way before it tries again at its next run. */
const LOCK_WAIT = '250ms'
const EVERY = 15 * MINUTE

/** The last day the fold adds by `now`: yesterday (UTC), the last finished day. */
const foldTarget = (now: Date) => toDay(new Date(now.getTime() - DAY))

/** Finished days the fold has not added yet (0 when up to date), for /metrics. */
export async function unfoldedDays(db: Db, now: Date = new Date()): Promise<number> {
  const res = await db.execute<{ n: number }>(sql`select greatest(0, ${foldTarget(now)}::date - day)::int as n from click_totals_through`)
  return Number(res.rows[0]?.n ?? 0)
}

/**
 * Folds every finished day (UTC, up to yesterday): its profiles into the rollups and the totals, and
 * the rollups of every day after the last folded one into the totals; late profiles of days already
 * folded go to both too. Answers the new last folded day, or undefined when there was nothing to fold.
 */
export async function foldTotals(db: Db, now: Date = new Date()): Promise<string | undefined> {
  const through = foldTarget(now)
  const [before] = await db.select({ day: clickTotalsThrough.day }).from(clickTotalsThrough)
  if (!before || (before.day >= through && !(await finishedProfiles(db, through)))) return undefined
  return db.transaction(async (tx) => {
    // Waiting for the lock holds off new batches and deletes, so the wait is short: a delete queued
    // behind the fold may hold a link a batch under way is waiting for, and the fold must give way
    // before the deadlock detector (1 s) picks one of them. It tries again at its next run.
    await tx.execute(sql`set local lock_timeout = ${sql.raw(`'${LOCK_WAIT}'`)}`)
    await tx.execute(sql`select pg_advisory_xact_lock(${TOTALS_LOCK})`)
    await tx.execute(sql`set local lock_timeout to default`)
    const [from] = await tx.select({ day: clickTotalsThrough.day }).from(clickTotalsThrough)
    const advance = from.day < through
    if (!advance && !(await finishedProfiles(tx, through))) return undefined
    // the totals gain the finished profiles (late ones of days already folded included) and the
    // rollups of the days now folded, as they were before this fold adds the profiles to them
    await tx.execute(sql`insert into click_totals (subject, link_id, qr_id, dimension, label, count)
      select subject, link_id, qr_id, dimension, label, sum(count)::int from (
        select subject, link_id, qr_id, dimension, label, count from click_profile_rollups where day <= ${through}
        union all
        select subject, link_id, qr_id, dimension, label, count from click_rollups where day > ${from.day} and day <= ${through}
      ) x
      group by subject, link_id, qr_id, dimension, label
      on conflict (subject, dimension, label) do update set count = click_totals.count + excluded.count`)
    await tx.execute(sql`insert into click_rollups (subject, link_id, qr_id, day, dimension, label, count)
      select subject, link_id, qr_id, day, dimension, label, sum(count)::int from click_profile_rollups
      where day <= ${through}
      group by subject, link_id, qr_id, day, dimension, label
      on conflict (subject, day, dimension, label) do update set count = click_rollups.count + excluded.count`)
    await tx.execute(sql`delete from click_profiles where day <= ${through}`)
    if (advance) await tx.update(clickTotalsThrough).set({ day: through })
    return through
  })
}

/** Whether click_profiles holds a day up to `day` (the BRIN index on day finds it). */
async function finishedProfiles(db: Pick<Db, 'execute'>, day: string): Promise<boolean> {
  const res = await db.execute(sql`select 1 from click_profiles where day <= ${day} limit 1`)
  return res.rows.length > 0
}

/** Folds a minute after start and then every 15 minutes (a no-op once today's fold is done); returns a stop function. */
export function startTotalsJob(db: Db, log: FastifyBaseLogger): () => void {
  return startPeriodic(
    async (stopped) => {
      try {
        const day = await foldTotals(db)
        if (day) log.info({ through: day }, 'click totals: finished days folded in')
      } catch (err) {
        if (stopped()) return
        // 55P03: batches kept the lock past LOCK_WAIT. Statistics read the unfolded days' rollups, so waiting costs nothing
        if (driverCode(err) === '55P03') log.debug('click totals: the fold gave way to click batches; trying again later')
        else log.warn({ err }, 'folding finished days into the click totals failed; trying again later')
      }
    },
    MINUTE,
    EVERY,
  )
}
