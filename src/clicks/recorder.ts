import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/client.js'
import { writeClickBatch, type BatchHook } from './batch.js'
import type { BufferedHit, Hit } from './hit.js'
import { LiveClicks } from './live-clicks.js'

export type { Hit }

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
  /** called in each batch's transaction (webhook click events) */
  onBatch?: BatchHook
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

/**
 * THE click pipeline (STYLE §3.6). `record()` is a synchronous push that never awaits the database;
 * batches are written every 250 ms or 500 clicks, each in ONE transaction (batch.ts). While the database is away the batch stays at the head of the buffer and is retried
 * with backoff; the buffer is bounded and what it cannot hold is counted and logged.
 */
export class ClickRecorder {
  private buffer: BufferedHit[] = []
  private readonly db: Db
  private readonly opts: Required<Omit<RecorderOptions, 'ping' | 'onBatch'>> & Pick<RecorderOptions, 'ping' | 'onBatch'>
  private timer: NodeJS.Timeout | null = null
  private chain: Promise<void> = Promise.resolve()
  private closed = false
  private backoffUntil = 0
  private consecutiveFailures = 0
  private lastOverflowLog = 0
  private overflowSinceLog = 0
  private readonly counters: RecorderStats = { recorded: 0, written: 0, discarded: 0, dropped: 0, failures: 0, buffered: 0 }
  /** live click counts of what this recorder buffers (expiry by `expiration_clicks`) */
  readonly live = new LiveClicks()

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
    if (human) this.live.buffered(hit.linkId!)
    this.schedule(this.buffer.length >= this.opts.batchSize ? 0 : this.opts.flushIntervalMs)
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
      this.live.clear()
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
    this.live.batchStarted()
    try {
      let written: number
      try {
        written = await writeClickBatch(this.db, this.opts.visitorKey, batch, this.opts.onBatch)
      } catch (err) {
        return await this.failed(batch, err)
      }
      this.take(batch)
      this.counters.written += written
      this.counters.discarded += batch.length - written
      this.consecutiveFailures = 0
      this.backoffUntil = 0
      this.live.batchCommitted()
      return batch.length
    } finally {
      this.live.batchEnded()
    }
  }

  private take(batch: BufferedHit[]) {
    this.buffer.splice(0, batch.length)
    this.live.left(batch.flatMap((h) => (h.human ? [h.linkId!] : [])))
  }

  private async failed(batch: BufferedHit[], err: unknown): Promise<number> {
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
