import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { effectivePlanLimit } from '../accounts/effective-plan.js'
import type { Db, Tx } from '../db/client.js'
import { clickQuota, links, plans, qrCodes, users } from '../db/schema/index.js'
import { enrich, type EnrichedClick } from './enrich.js'
import type { BufferedHit, Hit } from './hit.js'
import { bumpHourly } from './hourly.js'

/**
 * The SQL of one click batch: detail rows (within the monthly quota), unique visitors, daily
 * rollups, all-time totals and the link / QR counters, all in ONE transaction so statistics never
 * disagree with totals. What to write when, and what to do when it fails, is the recorder's job.
 */

/** Rows of a raw statement: both drivers answer `{ rows }`. */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows

/** Runs inside a batch's transaction after its rows are written (webhooks queue click events). */
export type BatchHook = (tx: Tx, hits: readonly BufferedHit[]) => Promise<void>

/** The click spool's part of a batch: whose spool, and whether records replayed after a crash are in it. */
export interface SpoolMark {
  instance: string
  /** sequences below it may have been committed before a crash: check the mark */
  replayBelow: number
}

/** Writes a batch in one transaction; returns how many hits were stored (others: deleted subjects or already committed). */
export async function writeClickBatch(db: Db, visitorKey: Buffer, batch: BufferedHit[], onBatch?: BatchHook, spool?: SpoolMark): Promise<number> {
  for (const h of batch) h.enriched ??= enrich(visitorKey, h.visitor, new Date(h.at))
  return db.transaction(async (tx) => {
    const fresh = spool ? await markSpool(tx, spool, batch) : batch
    const live = await existing(tx, fresh)
    if (live.length === 0) return 0
    const keep = await applyQuota(tx, live)

    const rows = live.filter((_, i) => keep[i]).map((h) => {
      const e = h.enriched!
      return {
        link_id: h.linkId ?? null,
        qr_id: h.qrId ?? null,
        source: h.source,
        created_at: new Date(h.at).toISOString(),
        country: e.country,
        referrer: e.referrer,
        browser: e.browser,
        os: e.os,
        device: e.device,
        language: e.language,
        bot: e.bot,
        visitor_hash: e.visitorHash,
      }
    })
    // One JSON parameter instead of a 6,000-parameter VALUES list: building and parsing that
    // costs more than the insert itself, and on PGlite it runs on the thread serving redirects.
    if (rows.length > 0) {
      await tx.execute(sql`insert into clicks (link_id, qr_id, source, created_at, country, referrer, browser, os, device, language, bot, visitor_hash)
        select link_id, qr_id, source, created_at, country, referrer, browser, os, device, language, bot, visitor_hash
        from json_populate_recordset(null::clicks, ${JSON.stringify(rows)}::json)`)
    }

    const uniques = await newVisitors(tx, live)
    await bumpRollups(tx, live, uniques)
    await bumpHourly(tx, live)
    await bumpCounters(tx, live, uniques)
    await onBatch?.(tx, live)
    return live.length
  })
}

/**
 * Records the batch's highest spool sequence as committed (with the clicks, in their transaction)
 * and, when replayed records are in the batch, leaves out those a batch committed before a crash.
 */
async function markSpool(tx: Tx, spool: SpoolMark, batch: BufferedHit[]): Promise<BufferedHit[]> {
  let top = 0
  for (const h of batch) if (h.seq !== undefined && h.seq > top) top = h.seq
  if (top === 0) return batch
  let fresh = batch
  if (batch.some((h) => h.seq !== undefined && h.seq < spool.replayBelow)) {
    const [row] = rowsOf<{ seq: string | number }>(await tx.execute(sql`select seq from click_spool_marks where instance = ${spool.instance} for update`))
    const done = row ? Number(row.seq) : 0
    fresh = batch.filter((h) => h.seq === undefined || h.seq > done)
  }
  await tx.execute(sql`insert into click_spool_marks (instance, seq) values (${spool.instance}, ${top})
      on conflict (instance) do update set seq = greatest(click_spool_marks.seq, excluded.seq)`)
  return fresh
}

/** Keeps hits whose link / QR code still exists, locking them against a concurrent delete. */
async function existing(tx: Tx, batch: BufferedHit[]): Promise<BufferedHit[]> {
  const linkIds = [...new Set(batch.flatMap((h) => (h.linkId !== undefined ? [h.linkId] : [])))]
  const qrIds = [...new Set(batch.flatMap((h) => (h.qrId !== undefined ? [h.qrId] : [])))]
  const liveLinks = new Set<number>()
  const liveQrs = new Set<number>()
  if (linkIds.length) {
    const rows = await tx.select({ id: links.id }).from(links).where(inArray(links.id, linkIds)).for('key share')
    rows.forEach((r) => liveLinks.add(r.id))
  }
  if (qrIds.length) {
    const rows = await tx.select({ id: qrCodes.id }).from(qrCodes).where(inArray(qrCodes.id, qrIds)).for('key share')
    rows.forEach((r) => liveQrs.add(r.id))
  }
  return batch.filter((h) => (h.linkId === undefined || liveLinks.has(h.linkId)) && (h.qrId === undefined || liveQrs.has(h.qrId)))
}

/**
 * The plan's `clicks` quota: detailed click rows kept per owner and calendar month. Beyond it the
 * visit still redirects and still counts (counters, rollups, uniques), but no detail row is kept.
 * Admins and plans with 0 are unlimited. Returns, per hit, whether its detail row is kept.
 */
async function applyQuota(tx: Tx, hits: BufferedHit[]): Promise<boolean[]> {
  const userIds = [...new Set(hits.map((h) => h.userId))]
  const owners = await tx
    .select({ id: users.id, admin: users.admin, maxClicks: effectivePlanLimit('max_clicks') })
    .from(users)
    .leftJoin(plans, eq(plans.id, users.planId))
    .where(inArray(users.id, userIds))
  const limitOf = new Map<number, number>()
  for (const o of owners) limitOf.set(o.id, o.admin ? 0 : Number(o.maxClicks ?? 0))

  const groups = new Map<string, { userId: number; month: string; idx: number[] }>()
  hits.forEach((h, i) => {
    const month = h.enriched!.day.slice(0, 7)
    const k = `${h.userId}|${month}`
    let g = groups.get(k)
    if (!g) groups.set(k, (g = { userId: h.userId, month, idx: [] }))
    g.idx.push(i)
  })
  const keep = hits.map(() => true)
  const counted: { user_id: number; month: string; count: number }[] = []
  for (const g of groups.values()) {
    const limit = limitOf.get(g.userId) ?? 0
    let allowed = g.idx.length
    if (limit > 0) {
      const [row] = await tx
        .select({ count: clickQuota.count })
        .from(clickQuota)
        .where(and(eq(clickQuota.userId, g.userId), eq(clickQuota.month, g.month)))
        .for('update')
      allowed = Math.max(0, Math.min(g.idx.length, limit - (row?.count ?? 0)))
      g.idx.slice(allowed).forEach((i) => (keep[i] = false))
    }
    if (allowed > 0) counted.push({ user_id: g.userId, month: g.month, count: allowed })
  }
  if (counted.length > 0) {
    await tx.execute(sql`insert into click_quota (user_id, month, count)
        select user_id, month, count from json_populate_recordset(null::click_quota, ${JSON.stringify(counted)}::json)
        on conflict (user_id, month) do update set count = click_quota.count + excluded.count`)
  }
  return keep
}

/** Records today's visitors of each subject; returns the new ones as `subject|day` → count. */
async function newVisitors(tx: Tx, hits: BufferedHit[]): Promise<Map<string, number>> {
  const seen = new Map<string, { subject: string; linkId: number | null; qrId: number | null; day: string; visitorHash: string }>()
  for (const h of hits) {
    if (h.enriched!.bot) continue
    for (const s of subjectsOf(h)) {
      const k = `${s.subject}|${h.enriched!.day}|${h.enriched!.visitorHash}`
      if (!seen.has(k)) seen.set(k, { ...s, day: h.enriched!.day, visitorHash: h.enriched!.visitorHash })
    }
  }
  const fresh = new Map<string, number>()
  if (seen.size === 0) return fresh
  const values = [...seen.values()].map((v) => ({ subject: v.subject, link_id: v.linkId, qr_id: v.qrId, day: v.day, visitor_hash: v.visitorHash }))
  const inserted = await tx.execute<{ subject: string; day: string }>(sql`insert into click_visitors (subject, link_id, qr_id, day, visitor_hash)
      select subject, link_id, qr_id, day, visitor_hash from json_populate_recordset(null::click_visitors, ${JSON.stringify(values)}::json)
      on conflict do nothing
      returning subject, day::text as day`)
  for (const r of rowsOf<{ subject: string; day: string }>(inserted)) fresh.set(`${r.subject}|${r.day}`, (fresh.get(`${r.subject}|${r.day}`) ?? 0) + 1)
  return fresh
}

async function bumpRollups(tx: Tx, hits: BufferedHit[], uniques: Map<string, number>) {
  const agg = new Map<string, { subject: string; linkId: number | null; qrId: number | null; day: string; dimension: string; label: string; count: number }>()
  const add = (s: Subject, day: string, dimension: string, label: string | null, n = 1) => {
    const l = label ?? ''
    const k = `${s.subject}\u0000${day}\u0000${dimension}\u0000${l}`
    const row = agg.get(k)
    if (row) row.count += n
    else agg.set(k, { ...s, day, dimension, label: l, count: n })
  }
  // count per (link or QR code, enrichment) first: repeated visitors share one enrichment object
  const groups = new Map<string, Map<EnrichedClick, { subject: Subject; n: number }>>()
  for (const h of hits) {
    for (const s of subjectsOf(h)) {
      let g = groups.get(s.subject)
      if (!g) groups.set(s.subject, (g = new Map()))
      const c = g.get(h.enriched!)
      if (c) c.n++
      else g.set(h.enriched!, { subject: s, n: 1 })
    }
  }
  for (const g of groups.values()) {
    for (const [e, { subject: s, n }] of g) {
      if (e.bot) {
        add(s, e.day, 'bot', null, n)
        continue
      }
      add(s, e.day, 'total', null, n)
      add(s, e.day, 'country', e.country, n)
      add(s, e.day, 'referrer', e.referrer, n)
      add(s, e.day, 'browser', e.browser, n)
      add(s, e.day, 'os', e.os, n)
      add(s, e.day, 'device', e.device, n)
      add(s, e.day, 'language', e.language, n)
      if (e.social) add(s, e.day, 'social', e.social, n)
    }
  }
  const subjects = new Map<string, Subject>()
  for (const h of hits) for (const s of subjectsOf(h)) subjects.set(s.subject, s)
  for (const [k, n] of uniques) {
    const [subject, day] = k.split('|')
    add(subjects.get(subject)!, day, 'unique', null, n)
  }
  if (agg.size === 0) return
  const rows = [...agg.values()].map((r) => ({ subject: r.subject, link_id: r.linkId, qr_id: r.qrId, day: r.day, dimension: r.dimension, label: r.label, count: r.count }))
  await tx.execute(sql`insert into click_rollups (subject, link_id, qr_id, day, dimension, label, count)
      select subject, link_id, qr_id, day, dimension, label, count from json_populate_recordset(null::click_rollups, ${JSON.stringify(rows)}::json)
      on conflict (subject, day, dimension, label) do update set count = click_rollups.count + excluded.count`)
  // the same counts without the day: what statistics read
  const totals = new Map<string, { subject: string; link_id: number | null; qr_id: number | null; dimension: string; label: string; count: number }>()
  for (const r of rows) {
    const k = `${r.subject}\u0000${r.dimension}\u0000${r.label}`
    const t = totals.get(k)
    if (t) t.count += r.count
    else totals.set(k, { subject: r.subject, link_id: r.link_id, qr_id: r.qr_id, dimension: r.dimension, label: r.label, count: r.count })
  }
  await tx.execute(sql`insert into click_totals (subject, link_id, qr_id, dimension, label, count)
      select subject, link_id, qr_id, dimension, label, count from json_populate_recordset(null::click_totals, ${JSON.stringify([...totals.values()])}::json)
      on conflict (subject, dimension, label) do update set count = click_totals.count + excluded.count`)
}

async function bumpCounters(tx: Tx, hits: BufferedHit[], uniques: Map<string, number>) {
  const linkDelta = new Map<number, { c: number; u: number; b: number; r: number | null }>()
  const qrDelta = new Map<number, { c: number; u: number; b: number; r: number | null }>()
  const bump = (m: typeof linkDelta, id: number, bot: boolean, rotation?: number) => {
    let d = m.get(id)
    if (!d) m.set(id, (d = { c: 0, u: 0, b: 0, r: null }))
    if (bot) d.b++
    else d.c++
    if (rotation !== undefined) d.r = rotation
  }
  for (const h of hits) {
    if (h.linkId !== undefined) bump(linkDelta, h.linkId, h.enriched!.bot, h.rotation)
    if (h.qrId !== undefined) bump(qrDelta, h.qrId, h.enriched!.bot)
  }
  for (const [k, n] of uniques) {
    const subject = k.split('|')[0]
    const id = Number(subject.slice(1))
    const d = (subject[0] === 'l' ? linkDelta : qrDelta).get(id)
    if (d) d.u += n
  }
  const values = (m: typeof linkDelta): SQL =>
    sql.join(
      [...m].map(([id, d]) => sql`(${id}::int, ${d.c}::int, ${d.u}::int, ${d.b}::int, ${d.r}::int)`),
      sql`, `,
    )
  if (linkDelta.size) {
    await tx.execute(sql`update links as l set
        clicks = l.clicks + v.c, unique_clicks = l.unique_clicks + v.u, bot_clicks = l.bot_clicks + v.b,
        last_rotation = coalesce(v.r, l.last_rotation)
      from (values ${values(linkDelta)}) as v(id, c, u, b, r) where l.id = v.id`)
  }
  if (qrDelta.size) {
    await tx.execute(sql`update qr_codes as q set
        scans = q.scans + v.c, unique_scans = q.unique_scans + v.u, bot_scans = q.bot_scans + v.b
      from (values ${values(qrDelta)}) as v(id, c, u, b, r) where q.id = v.id`)
  }
}

interface Subject {
  subject: string
  linkId: number | null
  qrId: number | null
}

/** The statistics subjects a hit counts for: its link and/or its QR code. */
function subjectsOf(h: Hit): Subject[] {
  const out: Subject[] = []
  if (h.linkId !== undefined) out.push({ subject: `l${h.linkId}`, linkId: h.linkId, qrId: null })
  if (h.qrId !== undefined) out.push({ subject: `q${h.qrId}`, linkId: null, qrId: h.qrId })
  return out
}

