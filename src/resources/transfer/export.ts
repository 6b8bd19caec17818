import { sql } from 'drizzle-orm'
import { type Db, rowsOf } from '../../db/client.js'
import { toTimestamp } from '../../http/format.js'
import { shortUrlOf } from '../../lib/short-url.js'
import { csvLine } from './csv.js'

/*
 * CSV exports (DECISIONS §10.4), streamed: rows are read a page at a time by keyset (never OFFSET,
 * never the whole set), and the next page is read only when the response has taken the last one,
 * so memory stays flat at any size.
 */

const PAGE = 2_000
export const LINK_COLUMNS = ['id', 'alias', 'shorturl', 'longurl', 'title', 'description', 'clicks', 'uniqueClicks', 'date', 'domain', 'campaign', 'channels', 'expiry']
export const CLICK_COLUMNS = ['date', 'country', 'referrer', 'browser', 'os', 'device', 'language', 'bot']

interface LinkRow {
  id: number
  cursor: string
  alias: string
  url: string
  title: string | null
  description: string | null
  clicks: number
  unique_clicks: number
  created_at: string | Date
  expires_at: string | Date | null
  domain: string | null
  campaign: string | null
  channels: string | null
}

/** The caller's links, oldest first; `channels` are the names of the link's channels joined with `|`. */
export async function* linksCsv(db: Db, publicUrl: string, userId: number): AsyncGenerator<string> {
  yield csvLine(LINK_COLUMNS)
  // keyset on (created_at, id), the order of the owner's index: by id alone, every page sorted all the owner's links.
  // `created_at >=` is what the index can seek on (a row comparison would not use it)
  let cursor: { ts: string; id: number } | null = null
  for (;;) {
    const rows: LinkRow[] = rowsOf<LinkRow>(
      await db.execute(sql`select l.id, l.created_at::text as cursor, l.alias, l.url, l.title, l.description, l.clicks, l.unique_clicks, l.created_at, l.expires_at,
          d.domain, c.name as campaign,
          (select string_agg(ch.name, '|' order by ch.name) from channel_items ci join channels ch on ch.id = ci.channel_id
            where ci.item_type = 'links' and ci.item_id = l.id) as channels
        from links l left join domains d on d.id = l.domain_id left join campaigns c on c.id = l.campaign_id
        where l.user_id = ${userId} ${cursor ? sql`and l.created_at >= ${cursor.ts}::timestamptz and (l.created_at > ${cursor.ts}::timestamptz or l.id > ${cursor.id})` : sql``}
        order by l.created_at, l.id limit ${PAGE}`),
    )
    if (rows.length === 0) return
    let chunk = ''
    for (const r of rows) {
      chunk += csvLine([
        r.id,
        r.alias,
        shortUrlOf({ publicUrl }, r, r.domain ? { domain: r.domain } : null),
        r.url,
        r.title,
        r.description,
        r.clicks,
        r.unique_clicks,
        toTimestamp(new Date(r.created_at)),
        r.domain ?? publicUrl,
        r.campaign,
        r.channels,
        r.expires_at ? toTimestamp(new Date(r.expires_at)) : null,
      ])
    }
    yield chunk
    const last = rows[rows.length - 1]
    cursor = { ts: last.cursor, id: Number(last.id) }
  }
}

interface ClickRow {
  id: number
  cursor: string
  created_at: string | Date
  country: string | null
  referrer: string | null
  browser: string | null
  os: string | null
  device: string | null
  language: string | null
  bot: boolean
}

/** Click rows of one link in [from, to), oldest first. The caller checked the link is theirs. */
export async function* clicksCsv(db: Db, linkId: number, from: Date | null, to: Date | null): AsyncGenerator<string> {
  yield csvLine(CLICK_COLUMNS)
  // the cursor is the timestamp as Postgres prints it: a JS Date would drop its microseconds
  let cursor: { ts: string; id: number } | null = null
  for (;;) {
    const rows: ClickRow[] = rowsOf<ClickRow>(
      await db.execute(sql`select id, created_at::text as cursor, created_at, country, referrer, browser, os, device, language, bot
        from clicks
        where link_id = ${linkId}
          ${from ? sql`and created_at >= ${from.toISOString()}` : sql``}
          ${to ? sql`and created_at < ${to.toISOString()}` : sql``}
          ${cursor ? sql`and created_at >= ${cursor.ts}::timestamptz and (created_at > ${cursor.ts}::timestamptz or id > ${cursor.id})` : sql``}
        order by created_at, id limit ${PAGE}`),
    )
    if (rows.length === 0) return
    let chunk = ''
    for (const r of rows) {
      chunk += csvLine([toTimestamp(new Date(r.created_at)), r.country, r.referrer, r.browser, r.os, r.device, r.language, r.bot ? 1 : 0])
    }
    yield chunk
    const last = rows[rows.length - 1]
    cursor = { ts: last.cursor, id: Number(last.id) }
  }
}
