import { sql } from 'drizzle-orm'
import type { Tx } from '../db/client.js'
import type { BufferedHit } from './hit.js'

/** Rows of a raw statement: both drivers answer `{ rows }`. */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows

/** The UTC hour a visit falls in, as Postgres reads a timestamptz. */
export const hourOf = (at: number): string => `${new Date(at).toISOString().slice(0, 13)}:00:00Z`

interface Bucket {
  subject: string
  link_id: number | null
  qr_id: number | null
  hour: string
  clicks: number
  unique_clicks: number
  bot_clicks: number
}

/**
 * Hourly clicks, unique visitors and bots per subject (click_hourly), inside the batch's
 * transaction. Unique visitors are deduplicated per hour through click_visitor_hours, one
 * statement for the visitors and one for the buckets whatever the batch size.
 */
export async function bumpHourly(tx: Tx, hits: readonly BufferedHit[]): Promise<void> {
  const buckets = new Map<string, Bucket>()
  const visitors = new Map<string, { subject: string; link_id: number | null; qr_id: number | null; hour: string; visitor_hash: string }>()
  for (const h of hits) {
    const hour = hourOf(h.at)
    const e = h.enriched!
    const subjects: [string, number | null, number | null][] = []
    if (h.linkId !== undefined) subjects.push([`l${h.linkId}`, h.linkId, null])
    if (h.qrId !== undefined) subjects.push([`q${h.qrId}`, null, h.qrId])
    for (const [subject, linkId, qrId] of subjects) {
      const k = `${subject}|${hour}`
      let b = buckets.get(k)
      if (!b) buckets.set(k, (b = { subject, link_id: linkId, qr_id: qrId, hour, clicks: 0, unique_clicks: 0, bot_clicks: 0 }))
      if (e.bot) {
        b.bot_clicks++
        continue
      }
      b.clicks++
      const v = `${k}|${e.visitorHash}`
      if (!visitors.has(v)) visitors.set(v, { subject, link_id: linkId, qr_id: qrId, hour, visitor_hash: e.visitorHash })
    }
  }
  if (buckets.size === 0) return
  if (visitors.size > 0) {
    const fresh = await tx.execute(sql`insert into click_visitor_hours (subject, link_id, qr_id, hour, visitor_hash)
        select subject, link_id, qr_id, hour, visitor_hash from json_populate_recordset(null::click_visitor_hours, ${JSON.stringify([...visitors.values()])}::json)
        on conflict do nothing
        returning subject, to_char(hour at time zone 'UTC', 'YYYY-MM-DD"T"HH24":00:00Z"') as hour`)
    for (const r of rowsOf<{ subject: string; hour: string }>(fresh)) {
      const b = buckets.get(`${r.subject}|${r.hour}`)
      if (b) b.unique_clicks++
    }
  }
  await tx.execute(sql`insert into click_hourly (subject, link_id, qr_id, hour, clicks, unique_clicks, bot_clicks)
      select subject, link_id, qr_id, hour, clicks, unique_clicks, bot_clicks from json_populate_recordset(null::click_hourly, ${JSON.stringify([...buckets.values()])}::json)
      on conflict (subject, hour) do update set clicks = click_hourly.clicks + excluded.clicks,
        unique_clicks = click_hourly.unique_clicks + excluded.unique_clicks, bot_clicks = click_hourly.bot_clicks + excluded.bot_clicks`)
}
