import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/client.js'
import { sql } from 'drizzle-orm'
import { writeClickBatch, type BatchHook } from './batch.js'
import { DiskBacklog } from './disk-backlog.js'
import { FlushTimer } from './flush-timer.js'
import { batchHead, type BufferedHit, type Hit } from './hit.js'
import { LiveClicks } from './live-clicks.js'
import type { ClickSpool } from './spool.js'

export type { Hit }

export interface RecorderOptions {
  db: Db
  visitorKey: Buffer
  log: FastifyBaseLogger
  /** whether the database answers; tells an outage (retry) from a batch the database refuses */
  ping?: () => Promise<boolean>
  flushIntervalMs?: number
  batchSize?: number
  /**
   * while not behind (fewer than batchSize hits wait, none on disk), a batch also stops before
   * its hits name more than this many links and QR codes: a subject's first click of a day writes
   * about twenty rows, and on PGlite a cache miss waits behind the batch in its one worker. While
   * behind, a batch takes batchSize hits whatever they name. Default: no limit
   */
  batchSubjects?: number
  /** most hits kept in memory while the database is away; beyond it hits are counted as dropped */
  maxBuffer?: number
  /** called in each batch's transaction (webhook click events) */
  onBatch?: BatchHook
  /** the crash-safe spool (spool.ts): every hit is appended before its answer; see replay() */
  spool?: ClickSpool
  /**
   * whether visits wait on the database now (cache misses). On PGlite a batch holds its one
   * connection for as long as it writes, so a timed batch waits while they do, until its oldest
   * hit is `maxHoldMs` old; the hits are in the spool meanwhile. Default: never waits
   */
  visitsWaiting?: () => boolean
  /** how long visitsWaiting may hold a hit back from its batch (default 2,000 ms) */
  maxHoldMs?: number
}

export interface RecorderStats {
  recorded: number
  written: number
  /** hits of links or QR codes deleted before their batch was written */
  discarded: number
  /** hits lost: buffer overflow during an outage (with the spool: only when the disk refused too), or a batch the database kept refusing */
  dropped: number
  /** failed write attempts */
  failures: number
  buffered: number
}

export interface SpoolCounters {
  /** hits appended to the spool */
  spooled: number
  /** hits the spool could not take (disk full): kept in memory only */
  unspooled: number
  /** hits only on disk: the memory buffer was full, read back as it drains */
  backlog: number
}

type Optional = 'ping' | 'onBatch' | 'spool' | 'visitsWaiting'

const MAX_BACKOFF_MS = 10_000
/** a batch that fails this often while the database answers pings is refused by it, not waiting for it */
const POISON_ATTEMPTS = 5

/**
 * THE click pipeline (STYLE §3.6). `record()` is a synchronous push that never awaits the database;
 * batches are written every 250 ms or once a batch is full (`batchSize`, 2,000 in the server, see
 * app.ts; `batchSubjects` caps a batch's links while not behind), each in ONE transaction
 * (batch.ts), later while `visitsWaiting` holds them (flush-timer.ts). While the database is away
 * the batch stays at the head of the buffer and is retried with backoff; the buffer is bounded
 * and what it cannot hold is counted and logged.
 */
export class ClickRecorder {
  private buffer: BufferedHit[] = []
  private readonly db: Db
  private readonly opts: Required<Omit<RecorderOptions, Optional>> & Pick<RecorderOptions, Optional>
  private readonly timer = new FlushTimer({
    flush: () => this.drain(true),
    next: (failed) => (failed || this.behind() ? 0 : this.buffer.length > 0 ? this.opts.flushIntervalMs : null),
    hold: () => this.holding(),
  })
  private chain: Promise<void> = Promise.resolve()
  private closed = false
  private consecutiveFailures = 0
  private lastOverflowLog = 0
  private overflowSinceLog = 0
  private readonly counters: RecorderStats = { recorded: 0, written: 0, discarded: 0, dropped: 0, failures: 0, buffered: 0 }
  /** hits only on disk (with a spool): the memory buffer was full, read back as it drains */
  private readonly disk?: DiskBacklog
  private lastSpoolErrorLog = 0
  /** hits accepted per source: the visits answered (metrics read them, so a visit costs no extra work) */
  readonly bySource: Record<Hit['source'], number> = { link: 0, rotator: 0, qr: 0 }
  /** told how long each committed batch took, in seconds (metrics) */
  onFlushed?: (seconds: number) => void
  /** live click counts of what this recorder buffers (expiry by `expiration_clicks`) */
  readonly live = new LiveClicks()

  constructor(opts: RecorderOptions) {
    this.db = opts.db
    // batchSubjects after the spread: the server passes it as undefined on Postgres
    this.opts = { flushIntervalMs: 250, batchSize: 500, maxBuffer: 100_000, maxHoldMs: 2_000, ...opts, batchSubjects: opts.batchSubjects ?? Infinity }
    if (opts.spool) {
      opts.spool.onRefused = (err) => this.spoolFailed(err)
      opts.spool.onWritten = (ok) => this.spoolWritten(ok)
      this.disk = new DiskBacklog(opts.spool)
      opts.spool.onAnswerError = (err) => this.opts.log.error({ err }, 'answering a visit after the spool write failed')
    }
  }

  record(hit: Hit): void {
    if (hit.linkId === undefined && hit.qrId === undefined) return
    const human = !hit.visitor.isBot && hit.linkId !== undefined
    // every field in the literal: one that is added later (seq here, enriched by the batch) gives each
    // buffered hit a second object for its properties, kept as long as the hit
    const buffered: BufferedHit = { linkId: hit.linkId, qrId: hit.qrId, userId: hit.userId, source: hit.source, visitor: hit.visitor, rotation: hit.rotation, at: Date.now(), human, seq: undefined, enriched: undefined }
    const spool = this.opts.spool
    if (spool && !this.closed) {
      buffered.seq = spool.append(buffered)
      // memory full (or already behind): the hit will wait on disk only, read back in order as the
      // buffer drains. It is taken once the turn's one write has put it there (spoolWritten).
      if (this.disk!.active || this.buffer.length >= this.opts.maxBuffer) return this.disk!.add(buffered)
    }
    this.keep(buffered)
  }

  /** A hit into the memory buffer, or dropped (counted, logged) when that is full or closed. */
  private keep(buffered: BufferedHit): void {
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
    this.buffer.push(buffered)
    this.counters.recorded++
    this.bySource[buffered.source]++
    if (buffered.human) this.live.buffered(buffered.linkId!)
    this.timer.arm(this.buffer.length >= this.opts.batchSize ? 0 : this.opts.flushIntervalMs)
  }

  /**
   * After a spool write: the hits waiting for it to live on disk only are taken (the backlog), or,
   * when the disk refused, kept in memory where it has room, as a hit the spool never took.
   */
  private spoolWritten(ok: boolean): void {
    const hits = this.disk!.written(ok)
    if (hits.length === 0) return
    if (!ok) return hits.forEach((h) => this.keep(h))
    this.counters.recorded += hits.length
    for (const h of hits) this.bySource[h.source]++
    this.timer.arm(this.opts.flushIntervalMs)
  }

  /** Whether a recorded hit's line still waits for this turn's spool write (its answer must wait too). */
  spoolWaiting(): boolean {
    return this.opts.spool !== undefined && this.opts.spool.waiting > 0
  }

  /**
   * Calls `answer` after the turn's spool write (`ClickSpool.afterWrite`): one system call for all
   * the visits of an event-loop turn instead of one each. Only when `spoolWaiting()`.
   */
  afterSpool(answer: () => void): void {
    this.opts.spool!.afterWrite(answer)
  }

  /**
   * Puts back in the buffer what the spool held at start (a crash or an outage at shutdown left
   * it there); the batches skip what was committed before the crash (batch.ts, click_spool_marks).
   */
  async replay(): Promise<number> {
    const spool = this.opts.spool
    if (!spool) return 0
    // a clock set back since the last run must not give new records sequences already committed
    try {
      const res = await this.db.execute(sql`select seq from click_spool_marks where instance = ${spool.name}`)
      const row = (res as unknown as { rows: { seq: string | number }[] }).rows[0]
      if (row) spool.advance(Number(row.seq) + 1)
    } catch {
      /* the database is away: the clock and the segments' own sequences still order them */
    }
    // at most what the memory buffer holds: the rest is read back from disk as the buffer drains
    const { hits, total } = spool.replay(Math.max(0, this.opts.maxBuffer - this.buffer.length))
    for (const h of hits) {
      this.buffer.push(h)
      if (h.human) this.live.buffered(h.linkId!)
    }
    if (total > hits.length) {
      this.disk!.leftOnDisk(hits.length > 0 ? hits[hits.length - 1].seq! : 0, total - hits.length)
    }
    if (total > 0) {
      this.opts.log.info({ clicks: total, inMemory: hits.length, spool: spool.name }, 'replaying clicks left in the spool by the last run')
      this.timer.arm(0)
    }
    return total
  }

  stats(): RecorderStats {
    return { ...this.counters, buffered: this.buffer.length }
  }

  spoolStats(): SpoolCounters & { on: boolean } {
    const spool = this.opts.spool
    const s = spool?.stats()
    return { spooled: s ? s.appended + spool!.waiting : 0, unspooled: s?.failed ?? 0, backlog: this.disk?.count ?? 0, on: spool !== undefined }
  }

  /**
   * Writes everything buffered now. Rejects when the database fails; the hits stay buffered and
   * the background retry keeps trying.
   */
  flush(): Promise<void> {
    return this.drain(false)
  }

  /** What flush() does; the timer's flush (`timed`) stops between batches while visits wait. */
  private drain(timed: boolean): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.opts.spool) this.refill()
      let todo = this.buffer.length
      while (todo > 0 && this.buffer.length > 0 && !(timed && this.holding())) todo -= await this.writeBatch()
    })
    this.chain = run.catch(() => {})
    return run
  }

  /** Drains the buffer (retrying for a while if the database is away), then refuses new hits. */
  async close(deadlineMs = 15_000): Promise<void> {
    this.timer.stop()
    const deadline = Date.now() + deadlineMs
    let wait = 100
    while (this.buffer.length > 0 || (this.disk && this.disk.count + this.disk.waiting > 0)) {
      try {
        await this.flush()
      } catch {
        if (Date.now() + wait > deadline) break
        await new Promise((r) => setTimeout(r, wait))
        wait = Math.min(wait * 2, 2_000)
      }
    }
    this.reportDrops('clicks dropped while the click buffer was full (since the last report)')
    this.closed = true
    if (this.opts.spool) {
      // lines still queued go to disk now, and their hits with them
      this.opts.spool.write()
      const left = this.buffer.length + this.disk!.count
      if (left > 0) this.opts.log.warn({ kept: left }, 'database unavailable at shutdown: clicks kept in the spool for the next start')
      this.buffer = []
      this.live.clear()
      this.opts.spool.close()
      return
    }
    if (this.buffer.length > 0) {
      this.counters.dropped += this.buffer.length
      this.opts.log.error({ lost: this.buffer.length }, 'database unavailable at shutdown: buffered clicks could not be stored')
      this.buffer = []
      this.live.clear()
    }
  }

  /** A timed batch waits for the visits waiting on the database, unless a hit is overdue or the buffer half full. */
  private holding(): boolean {
    if (!this.opts.visitsWaiting || this.buffer.length === 0 || this.disk?.active || this.buffer.length >= this.opts.maxBuffer / 2) return false
    return Date.now() - this.buffer[0].at < this.opts.maxHoldMs && this.opts.visitsWaiting()
  }

  /** A full batch waits, or hits wait on disk: the next batch is due at once, and takes batchSize. */
  private behind(): boolean {
    return this.buffer.length >= this.opts.batchSize || this.disk?.active === true
  }

  /** Writes the head of the buffer; returns how many hits it took off. */
  private async writeBatch(): Promise<number> {
    const batch = this.buffer.slice(0, this.behind() ? this.opts.batchSize : batchHead(this.buffer, this.opts.batchSize, this.opts.batchSubjects))
    if (batch.length === 0) return 0
    this.live.batchStarted()
    const spool = this.opts.spool
    try {
      let written: number
      const started = performance.now()
      try {
        written = await writeClickBatch(this.db, this.opts.visitorKey, batch, this.opts.onBatch, spool && { instance: spool.name, replayBelow: spool.replayBelow })
      } catch (err) {
        return await this.failed(batch, err)
      }
      this.onFlushed?.((performance.now() - started) / 1000)
      this.take(batch)
      this.reportDrops('clicks dropped while the click buffer was full (since the last report)')
      if (spool) {
        let top = 0
        for (const h of batch) if (h.seq !== undefined && h.seq > top) top = h.seq
        if (top > 0) spool.committed(top)
        this.refill()
      }
      this.counters.written += written
      this.counters.discarded += batch.length - written
      this.consecutiveFailures = 0
      this.timer.backoffUntil = 0
      this.live.batchCommitted()
      return batch.length
    } finally {
      this.live.batchEnded()
    }
  }

  /**
   * Reads back hits that overflowed to disk, in order, once the buffer has room: two batches' worth
   * at a time, since the read runs on the event loop (50,000 at once held every visit for 65-107 ms).
   */
  private refill() {
    if (!this.disk?.active || this.buffer.length > this.opts.maxBuffer / 2) return
    for (const h of this.disk.read(Math.min(this.opts.maxBuffer - this.buffer.length, 2 * this.opts.batchSize))) {
      this.buffer.push(h)
      if (h.human) this.live.buffered(h.linkId!)
    }
  }

  /**
   * Drops are reported at the first one, then at most every 10 s while they go on, and the rest
   * when the database is back or at shutdown: every drop is counted in some log line, with the
   * running total, and a burst of them never costs a line each.
   */
  private reportDrops(message: string) {
    if (this.overflowSinceLog === 0) return
    this.opts.log.error({ dropped: this.overflowSinceLog, totalDropped: this.counters.dropped }, message)
    this.overflowSinceLog = 0
    this.lastOverflowLog = Date.now()
  }

  private spoolFailed(err: unknown) {
    const now = Date.now()
    if (now - this.lastSpoolErrorLog < 10_000) return
    this.lastSpoolErrorLog = now
    this.opts.log.error({ err: (err as Error)?.message, unspooled: this.opts.spool?.stats().failed }, 'click spool write failed (disk full, or out of file descriptors: see MAX_CONNECTIONS): clicks kept in memory only')
  }

  private take(batch: BufferedHit[]) {
    this.buffer.splice(0, batch.length)
    this.live.left(batch.flatMap((h) => (h.human ? [h.linkId!] : [])))
  }

  private async failed(batch: BufferedHit[], err: unknown): Promise<number> {
    this.counters.failures++
    this.consecutiveFailures++
    const delay = Math.min(250 * 2 ** (this.consecutiveFailures - 1), MAX_BACKOFF_MS)
    this.timer.backoffUntil = Date.now() + delay
    const reachable = this.consecutiveFailures >= POISON_ATTEMPTS && this.opts.ping ? await this.opts.ping() : false
    if (reachable) {
      // The database answers but keeps refusing this batch: holding it would block every later click.
      this.take(batch)
      this.counters.dropped += batch.length
      this.consecutiveFailures = 0
      this.timer.backoffUntil = 0
      this.opts.log.error({ err, dropped: batch.length }, 'click batch refused by the database: dropped')
      return batch.length
    }
    if (this.consecutiveFailures === 1 || this.consecutiveFailures % 20 === 0) {
      const retry = { err, buffered: this.buffer.length, attempt: this.consecutiveFailures, retryInMs: delay }
      this.opts.log.warn(retry, 'writing clicks failed; kept in memory and retrying')
    }
    throw err
  }
}

export function createClickRecorder(opts: RecorderOptions): ClickRecorder {
  return new ClickRecorder(opts)
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the click pipeline: the redirect, QR scans and campaign pages all record through it */
    clicks: ClickRecorder
  }
}
