import { sql } from 'drizzle-orm'
import { type Db, type Tx, rowsOf } from '../db/client.js'
import { batchArgs, type SpoolPart } from './batch-payload.js'
import { enrichBatch } from './enrich.js'
import type { BufferedHit } from './hit.js'

/**
 * The SQL of one click batch: detail rows (within the monthly quota), unique visitors, daily and
 * hourly rollups and the link / QR counters (all-time totals only for a day already folded:
 * totals.ts), written by ONE call of write_click_batch() (migration 0007; 0009 replaced its
 * grouping step, 0010 takes the rows as arrays, 0011 leaves the totals to the daily fold), so
 * statistics never disagree with counters and a batch costs one round trip. What to
 * write when, and what to do when it fails, is the recorder's job.
 */

/**
 * Work that joins a batch's transaction (webhooks queue click events). When `active()` is false
 * the batch is the one function call, with no BEGIN / COMMIT around it. What `write` answers runs
 * once the transaction has committed: counts kept in memory must not grow for a batch that rolls
 * back and is written again.
 */
export interface BatchHook {
  active(): boolean
  write(tx: Tx, hits: readonly BufferedHit[]): Promise<AfterCommit | void>
}

/** Bookkeeping to do once the batch's transaction has committed. */
export type AfterCommit = () => void

/** The click spool's part of a batch: whose spool, and whether records replayed after a crash are in it. */
export interface SpoolMark {
  instance: string
  /** sequences below it may have been committed before a crash: check the mark */
  replayBelow: number
}

/** What write_click_batch() leaves out of a batch before writing it (see the migration). */
interface Excluded {
  done: number | string
  links: number[]
  qrs: number[]
}

/** Writes a batch atomically; returns how many hits were stored (others: deleted subjects or already committed). */
export async function writeClickBatch(db: Db, visitorKey: Buffer, batch: BufferedHit[], hook?: BatchHook, spool?: SpoolMark): Promise<number> {
  enrichBatch(visitorKey, batch)
  const mark = spool && spoolPart(spool, batch)
  if (!hook?.active()) return (await writeLive(db, batch, mark)).length
  const { written, after } = await db.transaction(async (tx) => {
    const live = await writeLive(tx, batch, mark)
    return { written: live.length, after: live.length > 0 ? await hook.write(tx, live) : undefined }
  })
  after?.()
  return written
}

/**
 * Calls the function until it writes: each refusal names hits to leave out (deleted links or QR
 * codes, replayed records already committed), which are rare, so the common batch is one call.
 */
async function writeLive(q: Db | Tx, batch: BufferedHit[], mark: SpoolPart | undefined): Promise<BufferedHit[]> {
  let live = batch
  for (;;) {
    if (live.length === 0 && !mark) return live
    const a = batchArgs(live, mark && { ...mark, lowest: live.length ? mark.lowest : undefined })
    const [row] = rowsOf<{ r: Excluded | string | null }>(
      await q.execute(
        sql`select write_click_batch(${a.batch}::jsonb, ${a.link}::integer[], ${a.qr}::integer[], ${a.source}::text[], ${a.at}::bigint[], ${a.enrichment}::integer[], ${a.quota}::integer[], ${a.place}::integer[], ${a.enriched}::json) as r`,
      ),
    )
    if (row.r === null) return live
    const ex: Excluded = typeof row.r === 'string' ? JSON.parse(row.r) : row.r
    const done = Number(ex.done)
    const goneLinks = new Set(ex.links)
    const goneQrs = new Set(ex.qrs)
    const kept = live.filter(
      (h) => (h.seq === undefined || h.seq > done) && (h.linkId === undefined || !goneLinks.has(h.linkId)) && (h.qrId === undefined || !goneQrs.has(h.qrId)),
    )
    if (kept.length === live.length) throw new Error('write_click_batch refused a batch without naming what to leave out')
    live = kept
    if (mark && mark.lowest !== undefined) mark.lowest = lowestSeq(live)
  }
}

/**
 * The batch's highest spool sequence, recorded as committed with the clicks; and when replayed
 * records are in it, its lowest, so the function checks the mark a batch committed before a crash.
 */
function spoolPart(spool: SpoolMark, batch: BufferedHit[]): SpoolPart | undefined {
  let top = 0
  let replayed = false
  for (const h of batch) {
    if (h.seq === undefined) continue
    if (h.seq > top) top = h.seq
    if (h.seq < spool.replayBelow) replayed = true
  }
  if (top === 0) return undefined
  return { instance: spool.instance, top, lowest: replayed ? lowestSeq(batch) : undefined }
}

function lowestSeq(hits: readonly BufferedHit[]): number | undefined {
  let low: number | undefined
  for (const h of hits) if (h.seq !== undefined && (low === undefined || h.seq < low)) low = h.seq
  return low
}
