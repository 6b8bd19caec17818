import type { FastifyBaseLogger } from 'fastify'
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from '../db/client.js'
import { clickQuota, links, plans, qrCodes, users } from '../db/schema/index.js'
import type { Visitor } from '../visit/visitor.js'
import { enrich, type EnrichedClick } from './enrich.js'

/** One visit of a link (direct or through a campaign rotator) or one scan of a QR code. */
export interface Hit {
  linkId?: number
  qrId?: number
  /** owner of the link or QR code, for the plan's monthly `clicks` quota */
  userId: number
  source: 'link' | 'rotator' | 'qr'
  visitor: Visitor
  /** rotation position served (persisted as links.last_rotation with the batch) */
  rotation?: number
}

interface Buffered extends Hit {
  /** epoch milliseconds of the visit */
  at: number
  enriched?: EnrichedClick
  /** counted in `pending` (a human visit of a link) */
  human: boolean
}

export interface RecorderOptions {
  db: Db
  visitorKey: Buffer
  log: FastifyBaseLogger
  /** whether the database answers; tells an outage (retry) from a batch the database refuses */
  ping?: () => Promise<boolean>
  flushIntervalMs?: number
  batchSize?: number
  /** most hits kept in memory while the database is away; beyond it hits are counted as dropped */
  maxBuffer?: number
}

export interface RecorderStats {
  recorded: number
  written: number
  /** hits of links or QR codes deleted before their batch was written */
  discarded: number
  /** hits lost: buffer overflow during an outage, or a batch the database kept refusing */
  dropped: number
  /** failed write attempts */
  failures: number
  buffered: number
}

const MAX_BACKOFF_MS = 10_000
/** a batch that fails this often while the database answers pings is refused by it, not waiting for it */
const POISON_ATTEMPTS = 5

/** Rows of a raw statement: both drivers answer `{ rows }`. */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows

/**
 * THE click pipeline (STYLE §3.6). `record()` is a synchronous push that never awaits the database;
 * batches are written every 250 ms or 500 clicks, each in ONE transaction that inserts the click
 * rows and bumps rollups, unique visitors and the counters together, so statistics never disagree
 * with totals. While the database is away the batch stays at the head of the buffer and is retried
 * with backoff; the buffer is bounded and what it cannot hold is counted and logged.
 */
export class ClickRecorder {
  private buffer: Buffered[] = []
  private readonly db: Db
  private readonly opts: Required<Omit<RecorderOptions, 'ping'>> & Pick<RecorderOptions, 'ping'>
  private timer: NodeJS.Timeout | null = null
  private chain: Promise<void> = Promise.resolve()
  private inFlight = 0
  private closed = false
  private backoffUntil = 0
  private consecutiveFailures = 0
  private lastOverflowLog = 0
  private overflowSinceLog = 0
  /** human link visits buffered but not yet committed, per link (for live expiry by clicks) */
  private readonly pending = new Map<number, number>()
  private readonly counters: RecorderStats = { recorded: 0, written: 0, discarded: 0, dropped: 0, failures: 0, buffered: 0 }
  /** bumped after every committed batch; lookups use it to read counters consistently */
  commits = 0
  /** true from the start of a batch write until its bookkeeping is done */
  flushing = false

  constructor(opts: RecorderOptions) {
    this.db = opts.db
    this.opts = { flushIntervalMs: 250, batchSize: 500, maxBuffer: 100_000, ...opts }
  }

  record(hit: Hit): void {
    if (hit.linkId === undefined && hit.qrId === undefined) return
    if (this.buffer.length >= this.opts.maxBuffer || this.closed) {
      this.counters.dropped++
      this.overflowSinceLog++
      const now = Date.now()
      if (now - this.lastOverflowLog > 10_000) {
        this.opts.log.error(
          { dropped: this.overflowSinceLog, totalDropped: this.counters.dropped, buffered: this.buffer.length },
          this.closed ? 'click recorded after shutdown: not stored' : 'click buffer full while the database is unavailable: clicks dropped',
        )
        this.lastOverflowLog = now
        this.overflowSinceLog = 0
      }
      return
    }
    const human = !hit.visitor.isBot && hit.linkId !== undefined
    this.buffer.push({
      linkId: hit.linkId,
      qrId: hit.qrId,
      userId: hit.userId,
      source: hit.source,
      visitor: hit.visitor,
      rotation: hit.rotation,
      at: Date.now(),
      human,
    })
    this.counters.recorded++
    if (human) this.pending.set(hit.linkId!, (this.pending.get(hit.linkId!) ?? 0) + 1)
    this.schedule(this.buffer.length >= this.opts.batchSize ? 0 : this.opts.flushIntervalMs)
  }

  /** Human visits of a link recorded but not yet in the database. */
  pendingHumans(linkId: number): number {
    return this.pending.get(linkId) ?? 0
  }

  /** Resolves once no batch is being written. */
  async idle(): Promise<void> {
    while (this.inFlight > 0) await this.chain.catch(() => {})
  }

  stats(): RecorderStats {
    return { ...this.counters, buffered: this.buffer.length }
  }

  /**
   * Writes everything buffered now. Rejects when the database fails; the hits stay buffered and
   * the background retry keeps trying.
   */
  flush(): Promise<void> {
    const run = this.chain.then(async () => {
      let todo = this.buffer.length
      while (todo > 0 && this.buffer.length > 0) todo -= await this.writeBatch()
    })
    this.chain = run.catch(() => {})
    return run
  }

  /** Drains the buffer (retrying for a while if the database is away), then refuses new hits. */
  async close(deadlineMs = 15_000): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const deadline = Date.now() + deadlineMs
    let wait = 100
    while (this.buffer.length > 0) {
      try {
        await this.flush()
      } catch {
        if (Date.now() + wait > deadline) break
        await new Promise((r) => setTimeout(r, wait))
        wait = Math.min(wait * 2, 2_000)
      }
    }
    this.closed = true
    if (this.buffer.length > 0) {
      this.counters.dropped += this.buffer.length
      this.opts.log.error({ lost: this.buffer.length }, 'database unavailable at shutdown: buffered clicks could not be stored')
      this.buffer = []
      this.pending.clear()
    }
  }

  private schedule(delayMs: number) {
    if (this.closed) return
    const wait = Math.max(delayMs, this.backoffUntil - Date.now())
    if (this.timer) {
      if (wait > 0) return
      clearTimeout(this.timer)
    }
    this.timer = setTimeout(() => {
      this.timer = null
      this.flush().then(
        () => {
          if (this.buffer.length > 0) this.schedule(this.opts.flushIntervalMs)
        },
        () => this.schedule(0),
      )
    }, wait)
    this.timer.unref()
  }

  /** Writes the head of the buffer; returns how many hits it took off. */
  private async writeBatch(): Promise<number> {
    const batch = this.buffer.slice(0, this.opts.batchSize)
    if (batch.length === 0) return 0
    this.inFlight++
    this.flushing = true
    try {
      let written: number
      try {
        written = await this.write(batch)
      } catch (err) {
        return await this.failed(batch, err)
      }
      this.take(batch)
      this.counters.written += written
      this.counters.discarded += batch.length - written
      this.consecutiveFailures = 0
      this.backoffUntil = 0
      this.commits++
      return batch.length
    } finally {
      this.flushing = false
      this.inFlight--
    }
  }

  private take(batch: Buffered[]) {
    this.buffer.splice(0, batch.length)
    for (const h of batch) {
      if (!h.human) continue
      const n = (this.pending.get(h.linkId!) ?? 1) - 1
      if (n > 0) this.pending.set(h.linkId!, n)
      else this.pending.delete(h.linkId!)
    }
  }

  private async failed(batch: Buffered[], err: unknown): Promise<number> {
    this.counters.failures++
    this.consecutiveFailures++
    const delay = Math.min(250 * 2 ** (this.consecutiveFailures - 1), MAX_BACKOFF_MS)
    this.backoffUntil = Date.now() + delay
    const message = (err as Error)?.message ?? String(err)
    const reachable = this.consecutiveFailures >= POISON_ATTEMPTS && this.opts.ping ? await this.opts.ping() : false
    if (reachable) {
      // The database answers but keeps refusing this batch: holding it would block every later click.
      this.take(batch)
      this.counters.dropped += batch.length
      this.consecutiveFailures = 0
      this.backoffUntil = 0
      this.opts.log.error({ err: message, dropped: batch.length }, 'click batch refused by the database: dropped')
      return batch.length
    }
    if (this.consecutiveFailures === 1 || this.consecutiveFailures % 20 === 0) {
      this.opts.log.warn(
        { err: message, buffered: this.buffer.length, attempt: this.consecutiveFailures, retryInMs: delay },
        'writing clicks failed; kept in memory and retrying',
      )
    }
    throw err
  }

  /** One transaction for the whole batch; returns how many hits were stored (others: deleted subjects). */
  private async write(batch: Buffered[]): Promise<number> {
    for (const h of batch) h.enriched ??= enrich(this.opts.visitorKey, h.visitor, new Date(h.at))
    return this.db.transaction(async (tx) => {
      const live = await this.existing(tx, batch)
      if (live.length === 0) return 0
      const keep = await this.applyQuota(tx, live)

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

      const uniques = await this.newVisitors(tx, live)
      await this.bumpRollups(tx, live, uniques)
      await this.bumpCounters(tx, live, uniques)
      return live.length
    })
  }

  /** Keeps hits whose link / QR code still exists, locking them against a concurrent delete. */
  private async existing(tx: Tx, batch: Buffered[]): Promise<Buffered[]> {
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
  private async applyQuota(tx: Tx, hits: Buffered[]): Promise<boolean[]> {
    const userIds = [...new Set(hits.map((h) => h.userId))]
    const owners = await tx
      .select({ id: users.id, admin: users.admin, expires: users.planExpires, maxClicks: plans.maxClicks })
      .from(users)
      .leftJoin(plans, eq(plans.id, users.planId))
      .where(inArray(users.id, userIds))
    let fallback: number | undefined
    const limitOf = new Map<number, number>()
    for (const o of owners) {
      let limit = o.maxClicks
      if (limit === null || (o.expires && o.expires.getTime() <= Date.now())) {
        if (fallback === undefined) {
          const [d] = await tx.select({ maxClicks: plans.maxClicks }).from(plans).where(eq(plans.isDefault, true)).limit(1)
          fallback = d?.maxClicks ?? 0
        }
        limit = fallback
      }
      limitOf.set(o.id, o.admin ? 0 : limit)
    }

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
  private async newVisitors(tx: Tx, hits: Buffered[]): Promise<Map<string, number>> {
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

  private async bumpRollups(tx: Tx, hits: Buffered[], uniques: Map<string, number>) {
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

  private async bumpCounters(tx: Tx, hits: Buffered[], uniques: Map<string, number>) {
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

export function createClickRecorder(opts: RecorderOptions): ClickRecorder {
  return new ClickRecorder(opts)
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the click pipeline (interfaces.md item 2) */
    clicks: ClickRecorder
  }
}
