import type { FastifyBaseLogger } from 'fastify'
import { sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from '../db/client.js'
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
 * Profile rows folded per transaction, about eight rollup rows and eight totals rows each. On PGlite
 * a row costs 20-35 µs, in the one connection that cache misses and API reads wait for, so one
 * transaction for a day of 15,000 profiles held them for 9-10 s; a hundred hold them for about a
 * tenth of a second (the day's fold as a whole takes about a third longer).
 */
const FOLD_PROFILES = 100

/** Takes the fold's lock in `tx`, waiting at most LOCK_WAIT for the batches under way (55P03 after that). */
async function lockFold(tx: Tx): Promise<void> {
  // Waiting for the lock holds off new batches and deletes, so the wait is short: a delete queued
  // behind the fold may hold a link a batch under way is waiting for, and the fold must give way
  // before the deadlock detector (1 s) picks one of them. It tries again at its next run.
  await tx.execute(sql`set local lock_timeout = ${sql.raw(`'${LOCK_WAIT}'`)}`)
  await tx.execute(sql`select pg_advisory_xact_lock(${TOTALS_LOCK})`)
  await tx.execute(sql`set local lock_timeout to default`)
}

/** Adds rollup-shaped rows (`source`: a table or view with its condition) to the all-time totals. */
async function addToTotals(tx: Tx, source: SQL): Promise<void> {
  await tx.execute(sql`insert into click_totals (subject, link_id, qr_id, dimension, label, count)
    select subject, link_id, qr_id, dimension, label, sum(count)::int from ${source}
    group by subject, link_id, qr_id, dimension, label
    on conflict (subject, dimension, label) do update set count = click_totals.count + excluded.count`)
}

/**
 * Moves click_totals_through to `through`, adding to the totals the rollups of the days it passes
 * (none, unless a previous release wrote them). The profiles of those days are then late ones,
 * which readers count and `foldProfiles` moves. Answers whether it moved.
 */
async function advance(db: Db, through: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockFold(tx)
    const [from] = await tx.select({ day: clickTotalsThrough.day }).from(clickTotalsThrough)
    if (from.day >= through) return false
    await addToTotals(tx, sql`click_rollups where day > ${from.day} and day <= ${through}`)
    await tx.update(clickTotalsThrough).set({ day: through })
    return true
  })
}

/**
 * The subjects holding profiles of folded days, in parts of about FOLD_PROFILES profiles (a subject
 * is never split). One read of the profiles: a part read at a time needs the primary key's order,
 * which the planner gives up for a sort of every row whenever its statistics are old.
 */
async function foldParts(db: Db): Promise<string[][]> {
  const res = await db.execute<{ subject: string; n: number }>(sql`select subject, count(*)::int as n from click_profiles
    where day <= (select day from click_totals_through) group by subject`)
  const parts: string[][] = []
  let part: string[] = []
  let rows = 0
  for (const r of res.rows) {
    if (part.length > 0 && rows + Number(r.n) > FOLD_PROFILES) {
      parts.push(part)
      part = []
      rows = 0
    }
    part.push(r.subject)
    rows += Number(r.n)
  }
  if (part.length > 0) parts.push(part)
  return parts
}

/** Adds the profiles of folded days of `subjects` to the rollups and the totals, and deletes them: one transaction. */
async function foldProfiles(db: Db, subjects: string[]): Promise<void> {
  await db.transaction(async (tx) => {
    await lockFold(tx)
    const folded = sql`subject = any(${sql.param(subjects)}::text[]) and day <= (select day from click_totals_through)`
    await addToTotals(tx, sql`click_profile_rollups where ${folded}`)
    await tx.execute(sql`insert into click_rollups (subject, link_id, qr_id, day, dimension, label, count)
      select subject, link_id, qr_id, day, dimension, label, sum(count)::int from click_profile_rollups where ${folded}
      group by subject, link_id, qr_id, day, dimension, label
      on conflict (subject, day, dimension, label) do update set count = click_rollups.count + excluded.count`)
    await tx.execute(sql`delete from click_profiles where ${folded}`)
  })
}

/**
 * Folds every finished day (UTC, up to yesterday). First click_totals_through moves to it, so the
 * finished days' profiles become late ones, which every reader already counts where they are; then
 * the profiles of folded days go into the rollups and the totals, a hundred a transaction, so no
 * reader or batch waits for the whole day. A run stopped between them (a crash, the lock refused)
 * leaves late profiles, which the next run folds; so does `stop()` (the server closing) between
 * parts. Answers the last folded day, or undefined when there was nothing to fold.
 */
export async function foldTotals(db: Db, now: Date = new Date(), stop: () => boolean = () => false): Promise<string | undefined> {
  const through = foldTarget(now)
  const [before] = await db.select({ day: clickTotalsThrough.day }).from(clickTotalsThrough)
  if (!before || (before.day >= through && !(await finishedProfiles(db, through)))) return undefined
  let folded = await advance(db, through)
  for (const subjects of await foldParts(db)) {
    if (stop()) break
    await foldProfiles(db, subjects)
    folded = true
  }
  return folded ? through : undefined
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
        const day = await foldTotals(db, new Date(), stopped)
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
