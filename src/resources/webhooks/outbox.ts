import { sql } from 'drizzle-orm'
import { type Db, type Tx, rowsOf } from '../../db/client.js'
import type { WebhookEvent } from '../../db/schema/index.js'
import { toTimestamp } from '../../http/format.js'
import { shortUrlOf } from '../../lib/short-url.js'
import type { ClickEventBacklog } from './backlog.js'
import type { AfterCommit } from '../../clicks/batch.js'

/*
 * The outbox writer. Every change that causes an event calls it with the transaction that makes
 * the change, so an event exists exactly when its change committed: a rolled-back create sends
 * nothing, and a committed one cannot lose its event to a crash. The delivery worker (deliver.ts)
 * reads the rows; nothing here does network I/O.
 */

/**
 * Queues `event` for each enabled webhook of `userId` subscribed to it. `data` becomes the body's
 * `data` as is. One statement; with no subscriber it inserts nothing.
 */
export async function enqueueEvent(db: Db | Tx, userId: number, event: WebhookEvent, data: unknown): Promise<void> {
  await db.execute(sql`insert into webhook_deliveries (webhook_id, event, data)
    select id, ${event}, ${JSON.stringify(data)} from webhooks
    where user_id = ${userId} and enabled and ${event} = any(events)`)
}

/** Whether `userId` has an enabled webhook for `event` (lets a writer skip a transaction it would not need). */
export async function wantsEvent(db: Db | Tx, userId: number, event: WebhookEvent): Promise<boolean> {
  const r = await db.execute(sql`select 1 from webhooks where user_id = ${userId} and enabled and ${event} = any(events) limit 1`)
  return rowsOf(r).length > 0
}

/** What a click event tells about the visit: never the IP, the user agent or the visitor hash. */
export interface ClickFacts {
  linkId?: number
  qrId?: number
  userId: number
  /** epoch milliseconds */
  at: number
  bot: boolean
  country: string | null
  device: string | null
  browser: string | null
  os: string | null
  /** host only */
  referrer: string | null
  language: string | null
}

/**
 * `link.clicked` / `qr.scanned` for a click batch, inside the batch's transaction. Bot hits send
 * nothing. The common case, no owner in the batch with a click webhook, costs one indexed read;
 * otherwise all rows go in one INSERT, whatever the batch size. An account gets no more than its
 * backlog has room for (backlog.ts): its webhooks count what they missed instead.
 */
export async function enqueueClickEvents(tx: Tx, publicUrl: string, backlog: ClickEventBacklog, hits: ClickFacts[]): Promise<AfterCommit> {
  const human = hits.filter((h) => !h.bot)
  if (human.length === 0) return NOTHING
  const owners = [...new Set(human.map((h) => h.userId))]
  const hooks = rowsOf<{ id: number; user_id: number; events: string[] }>(
    await tx.execute(sql`select id, user_id, events from webhooks
      where user_id in ${sql.raw(`(${owners.map(Number).join(',')})`)} and enabled
        and events && array['link.clicked', 'qr.scanned']::text[]`),
  )
  if (hooks.length === 0) return NOTHING
  const room = await backlog.room(tx, [...new Set(hooks.map((w) => w.user_id))])
  const queued = human.filter((h) => room.get(h.userId)! > 0)

  const linkIds = [...new Set(queued.flatMap((h) => (h.linkId !== undefined ? [h.linkId] : [])))]
  const qrIds = [...new Set(queued.flatMap((h) => (h.qrId !== undefined ? [h.qrId] : [])))]
  const linkInfo = new Map<number, { id: number; alias: string; shorturl: string }>()
  const qrInfo = new Map<number, { id: number; name: string }>()
  if (linkIds.length) {
    const rows = rowsOf<{ id: number; alias: string; domain: string | null }>(
      await tx.execute(sql`select l.id, l.alias, d.domain from links l left join domains d on d.id = l.domain_id
        where l.id in ${sql.raw(`(${linkIds.map(Number).join(',')})`)}`),
    )
    for (const r of rows) linkInfo.set(r.id, { id: r.id, alias: r.alias, shorturl: shortUrlOf({ publicUrl }, r, r.domain ? { domain: r.domain } : null) })
  }
  if (qrIds.length) {
    const rows = rowsOf<{ id: number; name: string }>(await tx.execute(sql`select id, name from qr_codes where id in ${sql.raw(`(${qrIds.map(Number).join(',')})`)}`))
    for (const r of rows) qrInfo.set(r.id, { id: r.id, name: r.name })
  }

  const out: { webhook_id: number; event: WebhookEvent; data: string }[] = []
  const missed = new Map<number, number>()
  // what each account queues now is what its room shrinks by
  const roomBefore = new Map(room)
  for (const h of human) {
    if (room.get(h.userId)! <= 0) {
      for (const w of hooks) {
        const n = w.user_id !== h.userId ? 0 : (h.linkId !== undefined && w.events.includes('link.clicked') ? 1 : 0) + (h.qrId !== undefined && w.events.includes('qr.scanned') ? 1 : 0)
        if (n > 0) missed.set(w.id, (missed.get(w.id) ?? 0) + n)
      }
      continue
    }
    const click = { date: toTimestamp(new Date(h.at)), country: h.country, device: h.device, browser: h.browser, os: h.os, referrer: h.referrer, language: h.language }
    const link = h.linkId !== undefined ? linkInfo.get(h.linkId) : undefined
    const qr = h.qrId !== undefined ? qrInfo.get(h.qrId) : undefined
    const first = out.length
    for (const w of hooks) {
      if (w.user_id !== h.userId) continue
      if (link && w.events.includes('link.clicked')) out.push({ webhook_id: w.id, event: 'link.clicked', data: JSON.stringify({ link, ...(qr ? { qr } : {}), click }) })
      if (qr && w.events.includes('qr.scanned')) out.push({ webhook_id: w.id, event: 'qr.scanned', data: JSON.stringify({ qr, ...(link ? { link } : {}), click }) })
    }
    room.set(h.userId, room.get(h.userId)! - (out.length - first))
  }
  let skipped = 0
  if (missed.size > 0) {
    const rows = [...missed].map(([id, n]) => ({ id, n }))
    await tx.execute(sql`update webhooks w set click_events_skipped = click_events_skipped + v.n, click_events_skipped_at = now()
      from json_to_recordset(${JSON.stringify(rows)}::json) as v(id int, n int) where w.id = v.id`)
    skipped = rows.reduce((sum, r) => sum + r.n, 0)
  }
  if (out.length > 0) {
    await tx.execute(sql`insert into webhook_deliveries (webhook_id, event, data)
      select webhook_id, event, data from json_populate_recordset(null::webhook_deliveries, ${JSON.stringify(out)}::json)`)
  }
  // counted in memory once committed: a batch that rolls back is written again and would count twice
  return () => {
    backlog.skipped += skipped
    if (out.length > 0) for (const [user, left] of room) backlog.queued(user, roomBefore.get(user)! - left)
  }
}

const NOTHING: AfterCommit = () => {}

/** What link events carry: the link as a list shows it (deleted: what identified it). */
export interface LinkFacts {
  id: number
  userId: number
  alias: string
  domainId: number | null
  url: string
  title?: string | null
  description?: string | null
  createdAt?: Date
}

/** `link.created` / `link.updated` / `link.deleted`, inside the transaction of the change. */
export async function enqueueLinkEvent(tx: Db | Tx, publicUrl: string, event: 'link.created' | 'link.updated' | 'link.deleted', link: LinkFacts): Promise<void> {
  const [domain] = link.domainId === null ? [] : rowsOf<{ domain: string }>(await tx.execute(sql`select domain from domains where id = ${link.domainId}`))
  const data = {
    id: link.id,
    alias: link.alias,
    shorturl: shortUrlOf({ publicUrl }, link, domain ?? null),
    longurl: link.url,
    ...(event === 'link.deleted'
      ? {}
      : { title: link.title ?? '', description: link.description ?? '', date: link.createdAt ? toTimestamp(link.createdAt) : null }),
  }
  await enqueueEvent(tx, link.userId, event, data)
}
