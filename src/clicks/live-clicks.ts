/**
 * Live human click counts for `expiration_clicks`: expiry must not wait for a flush or a cache
 * reload, so a count is the database counter plus the clicks still buffered. The recorder reports
 * what enters and leaves its buffer and when a batch is being written; the redirect cache asks for
 * a consistent count when it loads a link.
 */
export class LiveClicks {
  /** human link clicks buffered but not yet committed, per link */
  private readonly pending = new Map<number, number>()
  private writing = 0
  private commits = 0
  private idleWaiters: (() => void)[] = []

  /** A human click of the link entered the buffer. */
  buffered(linkId: number): void {
    this.pending.set(linkId, (this.pending.get(linkId) ?? 0) + 1)
  }

  /** Human clicks left the buffer (written, or dropped): one entry per click. */
  left(linkIds: Iterable<number>): void {
    for (const id of linkIds) {
      const n = (this.pending.get(id) ?? 1) - 1
      if (n > 0) this.pending.set(id, n)
      else this.pending.delete(id)
    }
  }

  /** Everything buffered is gone (shutdown without a database). */
  clear(): void {
    this.pending.clear()
  }

  batchStarted(): void {
    this.writing++
  }

  /** Call before batchEnded, once the batch's transaction has committed and its clicks have left. */
  batchCommitted(): void {
    this.commits++
  }

  batchEnded(): void {
    this.writing--
    if (this.writing > 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const w of waiters) w()
  }

  /** Human clicks of a link buffered now. */
  pendingOf(linkId: number): number {
    return this.pending.get(linkId) ?? 0
  }

  /**
   * Human clicks of a link right now: the stored counter (read by `readStored`) plus the clicks
   * still buffered. Read while no batch is being written, so a batch is counted either in the
   * database or in the buffer, never in both or neither. The caller must not await between this
   * answer and counting further clicks, or one could slip between them.
   */
  async count(linkId: number, readStored: () => Promise<number>): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      await this.idle()
      const commits = this.commits
      const stored = await readStored()
      if ((this.writing > 0 || this.commits !== commits) && attempt < 5) continue
      return stored + this.pendingOf(linkId)
    }
  }

  private idle(): Promise<void> {
    if (this.writing === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }
}
