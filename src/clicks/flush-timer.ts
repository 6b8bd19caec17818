/** How long a held batch waits before it asks again whether visits still wait on the database. */
const HOLD_STEP_MS = 20

export interface FlushTimerOptions {
  /** writes what is due; may stop early while visits wait (the recorder's timed flush) */
  flush(): Promise<void>
  /** after a flush: the delay before the next one, or null when nothing waits */
  next(failed: boolean): number | null
  /** whether a flush due now waits instead: visits wait on the database, and no hit is overdue */
  hold(): boolean
}

/**
 * When the click recorder's next batch is written: one timer for all of it. Arming it again only
 * ever brings it forward, and a flush it started schedules the next when it ends, so no visit arms
 * or clears a timer while a batch is being written (while behind, every visit asks for a flush at
 * once). No flush starts before a failed batch's backoff ends, nor while `hold()` says visits come
 * first: then the timer looks again every HOLD_STEP_MS.
 */
export class FlushTimer {
  private timer: NodeJS.Timeout | null = null
  /** when the pending timer fires (epoch ms) */
  private due = 0
  /** a flush this timer started is still running */
  private flushing = false
  private stopped = false
  /** no flush starts before this (epoch ms): set after a failed batch, cleared by a written one */
  backoffUntil = 0
  /** nor before this: a due flush held for waiting visits */
  private holdUntil = 0

  constructor(private readonly o: FlushTimerOptions) {}

  arm(delayMs: number): void {
    if (this.stopped || this.flushing) return
    const now = Date.now()
    const due = now + Math.max(delayMs, this.backoffUntil - now, this.holdUntil - now)
    if (this.timer) {
      if (due >= this.due) return
      clearTimeout(this.timer)
    }
    this.due = due
    this.timer = setTimeout(() => this.fire(), due - now)
    this.timer.unref()
  }

  /** No timed flush from now on (the recorder is closing and drains by itself). */
  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private fire() {
    this.timer = null
    if (this.o.hold()) {
      this.holdUntil = Date.now() + HOLD_STEP_MS
      this.arm(0)
      return
    }
    this.flushing = true
    const done = (failed: boolean) => {
      this.flushing = false
      const delay = this.o.next(failed)
      if (delay !== null) this.arm(delay)
    }
    this.o.flush().then(
      () => done(false),
      () => done(true),
    )
  }
}
