import { sql } from 'drizzle-orm'
import { type Db, rowsOf } from '../db/client.js'
import type { HealthState } from '../db/schema/index.js'
import { toTimestamp } from '../http/format.js'
import { shortUrlOf } from '../lib/short-url.js'
import { enqueueEvent } from '../resources/webhooks/outbox.js'
import type { ProbeResult } from './probe.js'

export interface Recorded {
  previous: HealthState
  state: HealthState
  /** whether what visitors get may have changed (broken came or went): the redirect cache must drop the link */
  servingChanged: boolean
}

/**
 * The first good check of a link is no news: `link.health` is sent for every other change of
 * state (to or from broken, ok → unknown), so a subscriber hears when a link breaks and recovers.
 */
const worthAnEvent = (previous: HealthState, state: HealthState) => previous !== state && !(previous === 'unknown' && state === 'ok')

/**
 * Stores what a check of `url` found on link `linkId`, and, on a change of state, queues
 * `link.health` in the same transaction. Written with raw statements so `updated_at` stays the
 * owner's last edit. Nothing is written when the link is gone or its long URL changed meanwhile
 * (the result is about a URL it no longer has); then the answer is null.
 */
export async function recordHealth(
  db: Db,
  publicUrl: string,
  linkId: number,
  url: string,
  result: ProbeResult,
  now: Date,
  nextCheckAt: Date | null,
): Promise<Recorded | null> {
  return db.transaction(async (tx) => {
    const [row] = rowsOf<{ user_id: number; alias: string; domain: string | null; health_state: HealthState }>(
      await tx.execute(sql`select l.user_id, l.alias, d.domain, l.health_state from links l left join domains d on d.id = l.domain_id
        where l.id = ${linkId} and l.url = ${url} for update of l`),
    )
    if (!row) return null
    await tx.execute(sql`update links set health_state = ${result.state}, health_status = ${result.status},
      health_reason = ${result.reason}, checked_at = ${now.toISOString()}::timestamptz,
      next_check_at = coalesce(${nextCheckAt?.toISOString() ?? null}::timestamptz, next_check_at)
      where id = ${linkId}`)
    const previous = row.health_state
    if (worthAnEvent(previous, result.state)) {
      await enqueueEvent(tx, row.user_id, 'link.health', {
        id: linkId,
        alias: row.alias,
        shorturl: shortUrlOf({ publicUrl }, { alias: row.alias }, row.domain ? { domain: row.domain } : null),
        longurl: url,
        previous,
        health: { state: result.state, status: result.status, reason: result.reason, checkedAt: toTimestamp(now) },
      })
    }
    return { previous, state: result.state, servingChanged: (previous === 'broken') !== (result.state === 'broken') }
  })
}
