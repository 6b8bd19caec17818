import { asc, eq, lte, sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from '../db/client.js'
import { plans, users } from '../db/schema/index.js'
import type { Plan, User } from './types.js'

/**
 * The one rule of DECISIONS §3: a user whose subscription has ended (`planExpires` passed), or who
 * has no plan, is on the default plan. Authentication, the admin user list, the click quota and
 * click retention all ask here, in TypeScript for one user or in SQL for many.
 */

/** Whether the user's own plan no longer applies (it ended, or there is none). */
export function planLapsed(user: Pick<User, 'planExpires'>, plan: Plan | null, now = Date.now()): boolean {
  return plan === null || (user.planExpires !== null && user.planExpires.getTime() <= now)
}

/** A paying account: a non-free plan that still applies (`status: "pro"` in SPEC.md). */
export function onPaidPlan(user: Pick<User, 'planExpires'>, plan: Plan | null, now = Date.now()): boolean {
  return !planLapsed(user, plan, now) && !plan!.free
}

/** The plan new users get and ended subscriptions fall back to: the default one, else the first free one. */
export async function defaultPlan(db: Db | Tx): Promise<Plan> {
  const [row] = await db.select().from(plans).where(eq(plans.isDefault, true)).orderBy(asc(plans.id)).limit(1)
  if (row) return row
  const [first] = await db.select().from(plans).where(eq(plans.free, true)).orderBy(asc(plans.id)).limit(1)
  if (!first) throw new Error('no free plan exists; run the migrations and seed')
  return first
}

/**
 * The plan that applies to a user now. An ended subscription is moved to the default plan on the
 * spot (on their next request), so no scheduler is needed.
 */
export async function effectivePlan(db: Db, user: User, plan: Plan | null): Promise<{ user: User; plan: Plan }> {
  if (!planLapsed(user, plan)) return { user, plan: plan! }
  const fallback = await defaultPlan(db)
  const [updated] = await db
    .update(users)
    .set({ planId: fallback.id, planExpires: null })
    .where(eq(users.id, user.id))
    .returning()
  return { user: updated ?? user, plan: fallback }
}

/** Moves every user whose subscription has ended back to the default plan. */
export async function expireSubscriptions(db: Db): Promise<void> {
  const fallback = await defaultPlan(db)
  await db.update(users).set({ planId: fallback.id, planExpires: null }).where(lte(users.planExpires, new Date()))
}

/** SQL twin of planLapsed, over `users` left-joined to `plans`. */
export const planLapsedSql: SQL = sql`(${plans.id} is null or (${users.planExpires} is not null and ${users.planExpires} <= now()))`

/**
 * SQL: one limit of the plan that applies, over `users` left-joined to `plans` (bulk jobs that
 * must not write users back: the click quota and the retention purge).
 */
export function effectivePlanLimit(column: 'max_clicks' | 'retention_days'): SQL<number | null> {
  const col = sql.raw(column)
  return sql<number | null>`(case when ${planLapsedSql}
      then (select d.${col} from plans d where d.is_default or d.free order by d.is_default desc, d.id limit 1)
      else ${plans}.${col} end)`
}

/** A user with the plan that applies to them now, or undefined for an unknown id. */
export async function findUserWithPlan(db: Db, id: number): Promise<{ user: User; plan: Plan } | undefined> {
  const [row] = await db.select({ user: users, plan: plans }).from(users).leftJoin(plans, eq(plans.id, users.planId)).where(eq(users.id, id))
  if (!row) return undefined
  return effectivePlan(db, row.user, row.plan)
}
