import type { BufferedHit } from './hit.js'
import type { ClickSpool } from './spool.js'

/**
 * The hits that live only in the spool: those beyond the recorder's memory buffer (an outage longer
 * than it, or a writer behind under load), read back in order as the buffer drains. The recorder
 * keeps the counters; this keeps where memory ends and what waits on disk.
 */
export class DiskBacklog {
  /** hits on disk only */
  count = 0
  /** the last sequence in memory while hits wait on disk (later ones are there); null when none do */
  private after: number | null = null
  /**
   * hits bound for disk only whose lines wait for the turn's spool write: one write system call a
   * turn, not one a visit (about 10 µs a visit, when the server has least CPU to spare)
   */
  private pending: BufferedHit[] = []

  constructor(private readonly spool: ClickSpool) {}

  /** Whether hits wait on disk (or are bound there): new hits go after them, batches are full-sized. */
  get active(): boolean {
    return this.after !== null
  }

  /** hits whose lines wait for the turn's write before they are on disk */
  get waiting(): number {
    return this.pending.length
  }

  /** A hit bound for disk only, its line queued in the spool. */
  add(hit: BufferedHit): void {
    if (this.after === null) this.after = hit.seq! - 1
    this.pending.push(hit)
  }

  /**
   * After a spool write: the hits that waited for it, now on disk (`ok`, counted in the backlog) or
   * refused by the disk (the caller keeps them in memory where it can).
   */
  written(ok: boolean): BufferedHit[] {
    const pending = this.pending
    if (pending.length === 0) return pending
    this.pending = []
    if (ok) this.count += pending.length
    // nothing of theirs is on disk: with no backlog either, memory is where hits go again
    else if (this.count === 0) this.after = null
    return pending
  }

  /** What a replay left on disk: `count` hits after sequence `lastInMemory`. */
  leftOnDisk(lastInMemory: number, count: number): void {
    this.after = lastInMemory
    this.count = count
  }

  /** Reads back up to `room` hits, oldest first (the turn's queued lines are written first). */
  read(room: number): BufferedHit[] {
    if (this.after === null) return []
    this.spool.write()
    // refused, and nothing was on disk before: the pending hits went back to memory (written)
    if (this.after === null) return []
    const hits = this.spool.read(this.after, room)
    this.count = Math.max(0, this.count - hits.length)
    // everything after `after` is now in memory: new hits go to the buffer again
    this.after = hits.length < room ? null : hits[hits.length - 1].seq!
    if (this.after === null) this.count = 0
    return hits
  }
}
