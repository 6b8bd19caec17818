import { createHmac } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'drizzle-orm'
import { type Db, rowsOf } from '../../db/client.js'
import { isDatabaseUnavailable } from '../../http/errors.js'
import { toTimestamp } from '../../http/format.js'
import { safeFetch, SsrfError } from '../../lib/ssrf.js'

/*
 * The delivery worker. Any number of instances may run it against one database: a due row is
 * claimed with FOR UPDATE SKIP LOCKED and leased (its next_attempt_at moves past the send's
 * deadline), so no two instances send the same delivery, and a crashed instance's claims come due
 * again when their lease ends. It runs on its own timer and never touches the request path.
 */

export interface DeliveryOptions {
  /** wait before each retry; after the last one a delivery is failed (DECISIONS §10.3) */
  backoffMs: number[]
  /** sends in flight at once, per instance */
  concurrency: number
  /** of those, at most this many to one account's receivers: a receiver that hangs holds only its account's share */
  perAccount: number
  /** how often due rows are looked for when idle */
  pollMs: number
  timeoutMs: number
  /** how long a claim is held; longer than timeoutMs, so a live send is never claimed twice */
  leaseMs: number
  /** a webhook whose deliveries fail for this long without a success is disabled */
  disableAfterMs: number
  /** delivered and failed rows are kept this long for the owner to read */
  keepMs: number
  /** ALLOW_PRIVATE_TARGETS */
  allowPrivate: boolean
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
export const DEFAULT_DELIVERY: DeliveryOptions = {
  backoffMs: [10_000, MINUTE, 10 * MINUTE, HOUR, 6 * HOUR, 24 * HOUR],
  concurrency: 32,
  perAccount: 8,
  pollMs: 1_000,
  timeoutMs: 5_000,
  leaseMs: 60_000,
  disableAfterMs: 72 * HOUR,
  keepMs: 30 * 24 * HOUR,
  allowPrivate: false,
}

interface Claimed {
  id: number
  webhook_id: number
  user_id: number
  event: string
  data: string
  attempts: number
  manual: boolean
  created_at: string | Date
  url: string
  secret: string
  enabled: boolean
  failing_since: string | Date | null
}

export interface DeliveryStats {
  delivered: number
  failedAttempts: number
  inFlight: number
}

/** The status of a delivery given up on: failed, unless the receiver took it once already (a manual resend). */
const DONE = sql`case when delivered_at is null then 'failed' else 'delivered' end`

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (DECISIONS §10.3). */
export function signature(secret: string, body: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`
}

/** The body as sent: `data` is spliced in as stored, so its bytes are the ones written with the change. */
export function deliveryBody(d: { id: number; event: string; created_at: string | Date; data: string }): string {
  return `{"id":${Number(d.id)},"event":${JSON.stringify(d.event)},"date":${JSON.stringify(toTimestamp(new Date(d.created_at)))},"data":${d.data}}`
}

export class DeliveryWorker {
  private readonly opts: DeliveryOptions
  private timer: NodeJS.Timeout | null = null
  private pumping: Promise<void> | null = null
  private readonly inFlight = new Set<Promise<void>>()
  /** sends in flight by account (perAccount) */
  private readonly busy = new Map<number, number>()
  private closed = false
  private lastPrune = 0
  /** the last poll failed for want of the database: said once until it answers again */
  private databaseAway = false
  private delivered: { id: number; attempts: number; status: number | null }[] = []
  private writing: Promise<void> = Promise.resolve()
  private readonly counters = { delivered: 0, failedAttempts: 0 }

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    opts: Partial<DeliveryOptions> = {},
  ) {
    this.opts = { ...DEFAULT_DELIVERY, ...opts }
  }

  start(): void {
    if (this.timer || this.closed) return
    this.timer = setInterval(() => void this.kick(), this.opts.pollMs)
    this.timer.unref()
    void this.kick()
  }

  stats(): DeliveryStats {
    return { ...this.counters, inFlight: this.inFlight.size }
  }

  /** Looks for due deliveries now (after a write that queued some, or on the timer). */
  kick(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.pumping ??= this.pump().finally(() => (this.pumping = null))
    return this.pumping
  }

  /** Sends everything due now and waits for those sends to settle (tests, shutdown). */
  async drain(): Promise<void> {
    await this.kick()
    while (this.inFlight.size > 0) {
      await Promise.all([...this.inFlight])
      await this.kick()
    }
  }

  /** Stops claiming and waits for the sends in flight to be recorded; the database must still be open. */
  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    await this.pumping
    await Promise.all([...this.inFlight])
  }

  private async pump(): Promise<void> {
    try {
      while (!this.closed) {
        // claim in batches (half the slots at least), not one row per finished send
        if (this.inFlight.size > this.opts.concurrency / 2) {
          await Promise.race(this.inFlight)
          continue
        }
        const room = this.opts.concurrency - this.inFlight.size
        const { claimed, heldBack } = await this.claim(room)
        for (const d of claimed) this.launch(d)
        if (claimed.length === room) continue
        // due deliveries of accounts at their share wait for one of their sends, not for the next poll
        if (!heldBack || this.inFlight.size === 0) break
        if (claimed.length === 0) await Promise.race(this.inFlight)
      }
      if (Date.now() - this.lastPrune > HOUR) await this.prune()
      if (this.databaseAway) {
        this.databaseAway = false
        this.log.info('webhook deliveries: the database is back; sending again')
      }
    } catch (err) {
      // a database outage is said once, not once a poll with its stack (an hour away is 3,600 lines)
      if (!isDatabaseUnavailable(err)) this.log.warn({ err }, 'webhook deliveries: claiming failed; retrying on the next poll')
      else if (!this.databaseAway) {
        this.databaseAway = true
        this.log.warn({ err }, 'webhook deliveries: the database is away; waiting for it')
      }
    }
  }

  private launch(d: Claimed): void {
    const user = Number(d.user_id)
    this.busy.set(user, (this.busy.get(user) ?? 0) + 1)
    const p: Promise<void> = this.send(d).finally(() => {
      this.inFlight.delete(p)
      const n = this.busy.get(user)! - 1
      if (n > 0) this.busy.set(user, n)
      else this.busy.delete(user)
    })
    this.inFlight.add(p)
  }

  /**
   * Up to `n` due deliveries, oldest first, but no account past its share (perAccount, counting
   * what this instance is sending it now): one account's hanging receivers and deep queue must not
   * hold every slot while other accounts' deliveries wait behind. Each webhook's due rows are read
   * from its own end of the pending index, so a deep queue is not read past its first few.
   */
  private async claim(n: number): Promise<{ claimed: Claimed[]; heldBack: boolean }> {
    const per = this.opts.perAccount
    const due = rowsOf<{ id: number; user_id: number }>(
      await this.db.execute(sql`select c.id, w.user_id from webhooks w
        cross join lateral (
          select id, next_attempt_at from webhook_deliveries
          where webhook_id = w.id and status = 'pending' and next_attempt_at <= now()
          order by next_attempt_at, id limit ${per}
        ) c
        order by c.next_attempt_at, c.id`),
    )
    const taken = new Map<number, number>()
    const ids: number[] = []
    let heldBack = false
    for (const d of due) {
      if (ids.length === n) break
      const user = Number(d.user_id)
      const count = (this.busy.get(user) ?? 0) + (taken.get(user) ?? 0)
      if (count >= per) {
        heldBack = true
        continue
      }
      taken.set(user, (taken.get(user) ?? 0) + 1)
      ids.push(Number(d.id))
    }
    if (ids.length === 0) return { claimed: [], heldBack }
    // another instance may have leased some meanwhile: those are skipped, not waited for
    const r = await this.db.execute(sql`update webhook_deliveries d
        set next_attempt_at = now() + ${`${this.opts.leaseMs} milliseconds`}::interval
      from webhooks w
      where w.id = d.webhook_id and d.id in (
        select id from webhook_deliveries
        where id in ${sql.raw(`(${ids.join(',')})`)} and status = 'pending' and next_attempt_at <= now()
        for update skip locked)
      returning d.id, d.webhook_id, w.user_id, d.event, d.data, d.attempts, d.manual, d.created_at, w.url, w.secret, w.enabled, w.failing_since`)
    return { claimed: rowsOf<Claimed>(r), heldBack }
  }

  private async send(d: Claimed): Promise<void> {
    if (!d.enabled) {
      await this.settle(d, { ok: false, status: null, error: 'the webhook is disabled' }, false)
      return
    }
    const body = deliveryBody(d)
    let outcome: { ok: boolean; status: number | null; error: string | null }
    try {
      const res = await safeFetch(d.url, {
        method: 'POST',
        body,
        maxBytes: 1024 * 1024,
        timeoutMs: this.opts.timeoutMs,
        maxRedirects: 0,
        // receivers listen where their owner chose; the address check is what keeps them public
        ports: 'any',
        allowPrivate: this.opts.allowPrivate,
        headers: {
          'user-agent': 'Kurz-Webhooks/1.0',
          'content-type': 'application/json',
          'kurz-event': d.event,
          'kurz-delivery': String(d.id),
          'kurz-signature': signature(d.secret, body),
        },
      })
      outcome = { ok: true, status: res.status, error: null }
    } catch (err) {
      const e = err instanceof SsrfError ? err : new SsrfError('network', 'could not be reached')
      outcome = { ok: false, status: e.status ?? null, error: `${d.url.slice(0, 200)} ${e.message}` }
    }
    try {
      await this.settle(d, outcome, true)
    } catch (err) {
      // the lease runs out and the delivery comes due again: sent twice rather than never
      this.log.warn({ err, delivery: d.id }, 'webhook delivery sent but its result could not be stored')
    }
  }

  private async settle(d: Claimed, o: { ok: boolean; status: number | null; error: string | null }, attempted: boolean): Promise<void> {
    const attempts = d.attempts + (attempted ? 1 : 0)
    if (o.ok && d.failing_since === null) {
      this.counters.delivered++
      return this.recordDelivered({ id: d.id, attempts, status: o.status })
    }
    if (o.ok) {
      this.counters.delivered++
      await this.db.transaction(async (tx) => {
        await tx.execute(sql`update webhook_deliveries set status = 'delivered', attempts = ${attempts}, response_status = ${o.status},
            error = null, delivered_at = now(), manual = false where id = ${d.id}`)
        await tx.execute(sql`update webhooks set failing_since = null where id = ${d.webhook_id} and failing_since is not null`)
      })
      return
    }
    if (attempted) this.counters.failedAttempts++
    const wait = this.opts.backoffMs[attempts - 1]
    const final = !attempted || d.manual || wait === undefined
    const due = final ? null : new Date(Date.now() + Math.round(wait * (0.9 + Math.random() * 0.2)))
    await this.db.transaction(async (tx) => {
      // a failed resend of a delivery the receiver already took leaves it delivered; `error` says how the resend went
      await tx.execute(sql`update webhook_deliveries set status = ${final ? DONE : sql`'pending'`}, attempts = ${attempts},
          response_status = ${o.status}, error = ${o.error}, manual = false,
          next_attempt_at = ${due ? due.toISOString() : sql`now()`} where id = ${d.id}`)
      if (!attempted) return
      const [w] = rowsOf<{ failing_since: string | Date }>(
        await tx.execute(sql`update webhooks set failing_since = coalesce(failing_since, now()) where id = ${d.webhook_id} returning failing_since`),
      )
      if (w && Date.now() - new Date(w.failing_since).getTime() >= this.opts.disableAfterMs) {
        const reason = `Disabled on ${toTimestamp(new Date())} UTC: every delivery failed for ${Math.round(this.opts.disableAfterMs / HOUR)} hours in a row (last: ${o.error}). Fix the receiver, then update the webhook with enabled: true.`
        await tx.execute(sql`update webhooks set enabled = false, disabled_reason = ${reason} where id = ${d.webhook_id} and enabled`)
        await tx.execute(sql`update webhook_deliveries set status = ${DONE}, next_attempt_at = now(),
            error = case when id = ${d.id} then error else 'the webhook was disabled' end
            where webhook_id = ${d.webhook_id} and status = 'pending'`)
        this.log.warn({ webhook: d.webhook_id }, 'webhook disabled after failing for days')
      }
    })
  }

  /**
   * Successes are written together: each send chains a write, and the write takes every success
   * recorded by then, so under load one UPDATE covers many deliveries and later links find nothing
   * left. A failed write loses no delivery: its lease ends and it is sent again.
   */
  private recordDelivered(entry: { id: number; attempts: number; status: number | null }): Promise<void> {
    this.delivered.push(entry)
    const run = this.writing.then(() => this.writeDelivered())
    this.writing = run.catch(() => {})
    return run
  }

  private async writeDelivered(): Promise<void> {
    const batch = this.delivered.splice(0)
    if (batch.length === 0) return
    await this.db.execute(sql`update webhook_deliveries d set status = 'delivered', attempts = v.attempts, response_status = v.status,
        error = null, delivered_at = now(), manual = false
      from json_to_recordset(${JSON.stringify(batch)}::json) as v(id bigint, attempts int, status int)
      where d.id = v.id`)
  }

  /**
   * Deletes delivered and failed rows older than keepMs. Ids grow with created_at, so the old rows
   * are the lowest ids: the first id young enough bounds a range of the primary key. A filter on
   * created_at alone read the whole table every hour (one row per click per webhook, kept for
   * weeks: millions of rows) to delete an hour of them.
   */
  private async prune(): Promise<void> {
    this.lastPrune = Date.now()
    const before = new Date(Date.now() - this.opts.keepMs).toISOString()
    await this.db.execute(sql`delete from webhook_deliveries where status <> 'pending' and id < coalesce(
        (select id from webhook_deliveries where created_at >= ${before} order by id limit 1),
        (select max(id) + 1 from webhook_deliveries))`)
  }
}
