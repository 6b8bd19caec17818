import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { nanoid } from 'nanoid'
import type { BufferedHit } from './hit.js'
import { fromLine, seqOf, SpoolLines } from './spool-format.js'
import { linesFrom } from './spool-lines.js'

/**
 * The crash-safe click spool (DECISIONS §10.7, decisions log "Click spool"). Every recorded hit is
 * appended as one JSON line to a segment file `DATA_DIR/spool/<instance>-<first seq>.spool`, and
 * its answer is sent only once the line is written (`append` queues it, `write` writes what is
 * queued in one system call; the recorder writes once per event-loop turn). The written page cache
 * survives `kill -9` (not a power cut: an fsync per click would cost more than the redirect). Each record carries a sequence
 * number, increasing for the life of the instance id; the batch that writes it records the highest
 * sequence it committed (click_spool_marks) in the same transaction, and segments are deleted only
 * once every record in them is at or below that mark. Replay after a crash reads the segments back,
 * and the batch skips records at or below the mark, so a batch committed just before the crash is
 * never written twice.
 */

/** records per segment before the next append starts a new file (a segment is deleted whole) */
const SEGMENT_RECORDS = 20_000

interface Segment {
  file: string
  first: number
  last: number
  records: number
}

/** slot names this process holds, so two apps in one process (tests) never share a spool */
const held = new Set<string>()

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The instance id kept in DATA_DIR, created on first start. */
function instanceId(dataDir: string): string {
  const file = join(dataDir, 'instance-id')
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim()
    if (/^[\w-]{4,64}$/.test(id)) return id
  }
  const id = nanoid(12).replace(/[^\w]/g, 'x')
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, `${id}\n`)
  return id
}

/**
 * Claims a spool name: the instance id, or `<id>.<n>` when another live process (or another app
 * in this one) holds it, so processes sharing one DATA_DIR never share a spool. A slot whose holder
 * died is taken over, and its spool replayed by the new holder.
 */
function claim(dir: string, id: string): { name: string; release(): void } {
  for (let n = 0; n < 64; n++) {
    const name = n === 0 ? id : `${id}.${n}`
    if (held.has(name)) continue
    const lock = join(dir, `${name}.pid`)
    if (existsSync(lock)) {
      const pid = Number(readFileSync(lock, 'utf8').trim())
      if (pid !== process.pid && Number.isInteger(pid) && pid > 0 && alive(pid)) continue
    }
    writeFileSync(lock, `${process.pid}\n`)
    held.add(name)
    return {
      name,
      release: () => {
        held.delete(name)
        try {
          if (readFileSync(lock, 'utf8').trim() === String(process.pid)) unlinkSync(lock)
        } catch {
          /* already gone */
        }
      },
    }
  }
  throw new Error(`Every click spool slot in ${dir} is held by a running process.`)
}

export interface SpoolStats {
  /** records written since start */
  appended: number
  /** records whose write the disk refused (full, read-only…) */
  failed: number
  /** write calls (system calls) that carried them: one per event-loop turn with visits */
  writes: number
  /** segment files on disk */
  segments: number
}

export class ClickSpool {
  readonly name: string
  private readonly dir: string
  private readonly release: () => void
  private segments: Segment[] = []
  private current: (Segment & { fd: number }) | null = null
  private nextSeq = 1
  /** lines appended and not yet written, and how many */
  private readonly queued = new SpoolLines()
  private queuedRecords = 0
  private queuedFirst = 0
  private queuedLast = 0
  /** sequences below it were in the spool at start: only their batches need the mark checked */
  readonly replayBelow: number
  private readonly counters = { appended: 0, failed: 0, writes: 0 }
  private writeQueued = false
  /** where the last read() stopped: the next one, if it continues from that record, starts there */
  private readTo: { file: string; offset: number; seq: number } | null = null
  /** answers of visits whose lines are queued: sent after the turn's write */
  private answers: (() => void)[] = []
  /** told when the disk refuses a write (the recorder logs it); the lines are counted in stats().failed */
  onRefused?: (err: unknown) => void
  /** told after every write that carried lines, whether the disk took them (before any answer waiting for it) */
  onWritten?: (ok: boolean) => void
  /** told when an answer run after the turn's write throws */
  onAnswerError?: (err: unknown) => void

  /** Claims a spool in `DATA_DIR/spool`; `replay()` then hands back what a crash left there. */
  constructor(dataDir: string) {
    this.dir = join(dataDir, 'spool')
    mkdirSync(this.dir, { recursive: true })
    const slot = claim(this.dir, instanceId(dataDir))
    this.name = slot.name
    this.release = slot.release
    for (const f of readdirSync(this.dir)) {
      const m = new RegExp(`^${this.name.replace('.', '\\.')}-(\\d+)\\.spool$`).exec(f)
      if (m) this.segments.push({ file: join(this.dir, f), first: Number(m[1]), last: Number(m[1]) - 1, records: 0 })
    }
    this.segments.sort((a, b) => a.first - b.first)
    // a sequence never repeats for this name: at least the clock in µs, which a restart cannot undercut
    this.nextSeq = Date.now() * 1000
    this.replayBelow = this.nextSeq
  }

  /** Never hands out a sequence below `seq` (the mark the database holds for this spool). */
  advance(seq: number): void {
    if (seq > this.nextSeq) this.nextSeq = seq
  }

  /**
   * What a crash or an outage left in the segments: the first `limit` records as hits, oldest first
   * (the caller writes them like fresh ones), and how many the segments hold in all. The rest stay
   * on disk for `read()`: an outage can leave millions of clicks here, which loaded at once would
   * take gigabytes of memory at every start. Records are in sequence order: segments by their first
   * sequence, lines as appended, and a new start never hands out a sequence below the last one's.
   */
  replay(limit: number): { hits: BufferedHit[]; total: number } {
    const hits: BufferedHit[] = []
    let total = 0
    let top = 0
    for (const s of this.segments) {
      for (const [text] of linesFrom(s.file)) {
        const seq = seqOf(text)
        if (seq === null) continue
        if (hits.length < limit) {
          const h = fromLine(text)
          if (!h) continue
          hits.push(h)
        }
        total++
        if (seq > s.last) s.last = seq
        if (seq > top) top = seq
        s.records++
      }
    }
    if (top + 1 > this.nextSeq) {
      this.nextSeq = top + 1
      ;(this as { replayBelow: number }).replayBelow = top + 1
    }
    // segments that held nothing readable are done with
    this.segments = this.segments.filter((s) => s.records > 0 || !this.unlink(s.file))
    return { hits, total }
  }

  /**
   * Queues a hit's line and gives it its sequence. Nothing is on disk until `write()`, which the
   * first line of an event-loop turn schedules (setImmediate): the turn's lines go out in one write.
   */
  append(hit: BufferedHit): number {
    const seq = this.nextSeq++
    this.queued.add(hit, seq)
    if (this.queuedRecords++ === 0) this.queuedFirst = seq
    this.queuedLast = seq
    if (!this.writeQueued) {
      this.writeQueued = true
      setImmediate(this.turn)
    }
    return seq
  }

  /** lines appended and not yet written */
  get waiting(): number {
    return this.queuedRecords
  }

  /**
   * Calls `answer` after this turn's write (DECISIONS §10.7: an answered visit survives `kill -9`).
   * The answers wait only until the turn's I/O callbacks are done; a refused write still answers.
   */
  afterWrite(answer: () => void): void {
    this.answers.push(answer)
  }

  /**
   * Writes every queued line in one system call, synchronously: on return they are in the page
   * cache. False when the disk refuses (full, read-only...): the lines are given up (the recorder
   * keeps their hits in memory where it can), counted in stats().failed and told to onRefused.
   */
  write(): boolean {
    if (this.queuedRecords === 0) return true
    const { queuedRecords: records, queuedFirst: first, queuedLast: last } = this
    this.queuedRecords = 0
    try {
      if (!this.current) {
        const file = join(this.dir, `${this.name}-${first}.spool`)
        this.current = { file, first, last: first - 1, records: 0, fd: openSync(file, 'a') }
      }
      this.counters.writes++
      const out = this.queued.bytes()
      const wrote = writeSync(this.current.fd, out)
      if (wrote < out.length) {
        // the disk filled up mid-write: the torn last line must not run into the next write's first
        this.seal()
        throw new Error(`the disk took ${wrote} of ${out.length} bytes (full?)`)
      }
    } catch (err) {
      this.counters.failed += records
      this.onRefused?.(err)
      this.onWritten?.(false)
      return false
    } finally {
      this.queued.clear()
    }
    this.counters.appended += records
    this.current.last = last
    this.current.records += records
    if (this.current.records >= SEGMENT_RECORDS) this.seal()
    this.onWritten?.(true)
    return true
  }

  /** The turn's write, then the answers that waited for it. */
  private readonly turn = () => {
    this.writeQueued = false
    this.write()
    const answers = this.answers
    if (answers.length === 0) return
    this.answers = []
    for (const answer of answers) {
      try {
        answer()
      } catch (err) {
        this.onAnswerError?.(err)
      }
    }
  }

  /**
   * Records after `afterSeq` on disk (not those still queued), oldest first, at most `limit`: what
   * overflowed the memory buffer. A read that continues the last one (its last record is
   * `afterSeq`) starts at the byte where that one stopped, not at the top of its segment.
   */
  read(afterSeq: number, limit: number): BufferedHit[] {
    const out: BufferedHit[] = []
    const resume = this.readTo !== null && this.readTo.seq === afterSeq ? this.readTo : null
    this.readTo = null
    for (const s of [...this.segments, ...(this.current ? [this.current] : [])]) {
      if (s.last <= afterSeq) continue
      for (const [text, end] of linesFrom(s.file, resume?.file === s.file ? resume.offset : 0)) {
        const seq = seqOf(text)
        if (seq === null || seq <= afterSeq) continue
        const h = fromLine(text)
        if (!h) continue
        out.push(h)
        if (out.length >= limit) {
          this.readTo = { file: s.file, offset: end, seq }
          return out
        }
      }
    }
    return out
  }

  /** Everything up to `seq` is committed: deletes the segments it covers. */
  committed(seq: number): void {
    this.segments = this.segments.filter((s) => s.last > seq || !this.unlink(s.file))
    if (this.current && this.current.last <= seq) {
      closeSync(this.current.fd)
      this.unlink(this.current.file)
      this.current = null
    }
  }

  stats(): SpoolStats {
    return { ...this.counters, segments: this.segments.length + (this.current ? 1 : 0) }
  }

  /** Keeps whatever is not committed on disk for the next start. */
  close(): void {
    this.turn()
    if (this.current) {
      const c = this.current
      this.current = null
      closeSync(c.fd)
      if (c.records === 0) this.unlink(c.file)
    }
    this.release()
  }

  private seal() {
    const c = this.current!
    closeSync(c.fd)
    this.segments.push({ file: c.file, first: c.first, last: c.last, records: c.records })
    this.current = null
  }

  /** returns true once the file is gone */
  private unlink(file: string): boolean {
    try {
      unlinkSync(file)
    } catch {
      /* already gone */
    }
    return true
  }
}
