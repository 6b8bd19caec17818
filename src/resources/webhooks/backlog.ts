import { sql } from 'drizzle-orm'
import { type Tx, rowsOf } from '../../db/client.js'

/*
 * How far behind an account's webhook receivers are, as the click writer sees it. Click events fan
 * out: one click is a delivery row per subscribed webhook, written in the click batch's transaction.
 * Receivers that never answer, or cannot keep up, would let one account grow the outbox without end
 * and slow every account's click writes with it. So while an account has `cap` deliveries pending,
 * its click events are not queued (the skips are counted on its webhooks); its other events still are.
 * A disabled webhook's deliveries wait for it to be enabled again; they do not count, so switching
 * off a dead receiver makes room for the account's others.
 *
 * Counting an account's backlog reads up to `cap` index entries, so a count is reused: this
 * instance adds what it queued since, and counts again when the count is old, sooner at the cap
 * (to notice the receivers catching up). Another instance's rows show up at the next count.
 */

/** A count trusted this long below the cap, and this long at it. */
const RECOUNT_MS = 10_000
const RECOUNT_FULL_MS = 1_000

export class ClickEventBacklog {
  private readonly known = new Map<number, { pending: number; at: number }>()
  /** click events not queued since start, for /metrics */
  skipped = 0

  constructor(
    readonly cap: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many deliveries each of `users` may still queue (0: full); counts the ones not counted lately. */
  async room(tx: Tx, users: readonly number[]): Promise<Map<number, number>> {
    const now = this.now()
    const stale = users.filter((u) => {
      const k = this.known.get(u)
      return !k || now - k.at >= (k.pending >= this.cap ? RECOUNT_FULL_MS : RECOUNT_MS)
    })
    if (stale.length > 0) {
      const counted = rowsOf<{ user_id: number; n: number }>(
        await tx.execute(sql`select u.id as user_id, (
            select count(*)::int from (
              select 1 from webhooks w join webhook_deliveries d on d.webhook_id = w.id and d.status = 'pending'
              where w.user_id = u.id and w.enabled limit ${this.cap}
            ) s
          ) as n
          from unnest(${sql.raw(`array[${stale.map(Number).join(',')}]`)}::int[]) as u(id)`),
      )
      for (const r of counted) this.known.set(Number(r.user_id), { pending: Number(r.n), at: now })
    }
    return new Map(users.map((u) => [u, Math.max(0, this.cap - (this.known.get(u)?.pending ?? 0))]))
  }

  /** `n` deliveries this instance queued for `userId` since its last count. */
  queued(userId: number, n: number): void {
    const k = this.known.get(userId)
    if (k) k.pending += n
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** how far behind each account's webhook receivers are, for the click writer (backlog.ts) */
    clickEventBacklog: ClickEventBacklog
  }
}
