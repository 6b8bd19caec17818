import { sql } from 'drizzle-orm'
import type { FastifyBaseLogger } from 'fastify'
import { type Db, rowsOf } from '../db/client.js'
import type { HealthState } from '../db/schema/index.js'
import { probe, PROBE_TIMEOUT, type ProbeResult } from './probe.js'
import { recordHealth } from './store.js'

export interface HealthOptions {
  /** HEALTH_CHECK_INTERVAL in seconds: each link is checked once per interval; 0 = no background checks */
  intervalSec: number
  /** ALLOW_PRIVATE_TARGETS */
  allowPrivate: boolean
  /** how long to wait before looking again when no link was due [30 s] */
  pollMs: number
  /** links claimed per round [20] */
  batch: number
  /** checks started per second at most, over every host [3] */
  perSecond: number
  /** time between two checks of the same host [2 s] */
  hostSpacingMs: number
  timeoutMs: number
}

export const DEFAULT_HEALTH: Omit<HealthOptions, 'intervalSec' | 'allowPrivate'> = {
  pollMs: 30_000,
  batch: 20,
  perSecond: 3,
  hostSpacingMs: 2_000,
  timeoutMs: PROBE_TIMEOUT,
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host.toLowerCase()
  } catch {
    return ''
  }
}

/**
 * The background health checker (DECISIONS §10.5). Instances share the work through the database:
 * a round claims due links and pushes their `next_check_at` one interval on in one statement
 * (FOR UPDATE SKIP LOCKED), so each link is checked once per interval whatever the number of
 * instances. Within an instance checks are paced: a few a second overall, and seconds apart on
 * one host. Per-host spacing is per instance; the claim keeps the total per link at one.
 */
export class HealthChecker {
  private readonly o: HealthOptions
  private running = false
  private loop: Promise<void> | null = null
  private wake: (() => void) | null = null
  private timer: NodeJS.Timeout | null = null
  private readonly hostNext = new Map<string, number>()
  private globalNext = 0
  /** checks this instance recorded since start, by what they found (GET /metrics) */
  readonly checks: Record<HealthState, number> = { ok: 0, broken: 0, unknown: 0 }

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
    private readonly publicUrl: string,
    /** after a check changed what visitors get: drop the link from the redirect caches */
    private readonly onServingChanged: (linkId: number) => Promise<void>,
    opts: Partial<HealthOptions> & Pick<HealthOptions, 'intervalSec' | 'allowPrivate'>,
  ) {
    this.o = { ...DEFAULT_HEALTH, ...opts }
  }

  /** Starts the background rounds (nothing when the interval is 0). */
  start() {
    if (this.running || this.o.intervalSec <= 0) return
    this.running = true
    this.loop = this.run()
  }

  async close() {
    this.running = false
    this.wakeUp()
    await this.loop
  }

  /** `POST /api/url/:id/check`: checks the link's long URL now; the next background check is an interval away. */
  async checkNow(linkId: number, url: string): Promise<{ result: ProbeResult; checkedAt: Date } | null> {
    const result = await probe(url, { allowPrivate: this.o.allowPrivate, timeoutMs: this.o.timeoutMs })
    const checkedAt = new Date()
    const next = this.o.intervalSec > 0 ? new Date(checkedAt.getTime() + this.o.intervalSec * 1000) : null
    const recorded = await this.record(linkId, url, result, checkedAt, next)
    return recorded ? { result, checkedAt } : null
  }

  /** One round: claims due links and checks them, paced. Returns how many were claimed. */
  async runOnce(): Promise<number> {
    const claimed = rowsOf<{ id: number; url: string }>(
      await this.db.execute(sql`update links set next_check_at = now() + ${this.o.intervalSec} * interval '1 second'
        where id in (select id from links where next_check_at <= now() order by next_check_at limit ${this.o.batch} for update skip locked)
        returning id, url`),
    )
    const checks: Promise<void>[] = []
    const skipped: number[] = []
    for (const link of claimed) {
      if (!this.running && this.loop) {
        skipped.push(link.id)
        continue
      }
      await this.waitForSlot(hostOf(link.url))
      checks.push(this.checkClaimed(link.id, link.url))
    }
    await Promise.all(checks)
    // claimed but not checked because the instance is stopping: due again at once, for any instance
    if (skipped.length) await this.db.execute(sql`update links set next_check_at = now() where id in ${sql.raw(`(${skipped.join(',')})`)}`)
    return claimed.length
  }

  private async run() {
    while (this.running) {
      let claimed = 0
      try {
        claimed = await this.runOnce()
      } catch (err) {
        this.log.warn({ err }, 'health check round failed; retried later')
      }
      if (this.running && claimed === 0) await this.sleep(this.o.pollMs)
    }
  }

  private async checkClaimed(linkId: number, url: string) {
    try {
      const result = await probe(url, { allowPrivate: this.o.allowPrivate, timeoutMs: this.o.timeoutMs })
      await this.record(linkId, url, result, new Date(), null)
    } catch (err) {
      this.log.warn({ err, linkId }, 'health check failed')
    }
  }

  private async record(linkId: number, url: string, result: ProbeResult, at: Date, next: Date | null) {
    const recorded = await recordHealth(this.db, this.publicUrl, linkId, url, result, at, next)
    if (recorded) this.checks[result.state]++
    if (recorded?.servingChanged) await this.onServingChanged(linkId)
    return recorded
  }

  /** Waits until both the overall pace and the host's spacing allow another check. */
  private async waitForSlot(host: string) {
    const now = Date.now()
    const start = Math.max(now, this.globalNext, host ? (this.hostNext.get(host) ?? 0) : 0)
    this.globalNext = start + 1000 / this.o.perSecond
    if (host) this.hostNext.set(host, start + this.o.hostSpacingMs)
    if (this.hostNext.size > 10_000) {
      for (const [h, t] of this.hostNext) if (t < now) this.hostNext.delete(h)
    }
    if (start > now) await this.sleep(start - now)
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      this.wake = resolve
      this.timer = setTimeout(resolve, ms)
      this.timer.unref()
    }).finally(() => {
      if (this.timer) clearTimeout(this.timer)
      this.timer = null
      this.wake = null
    })
  }

  private wakeUp() {
    this.wake?.()
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** the link health checker (src/health): background rounds and `POST /api/url/:id/check` */
    healthChecker: HealthChecker
  }
}
