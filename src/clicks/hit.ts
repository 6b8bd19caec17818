import type { Visitor } from '../visit/visitor.js'
import type { EnrichedClick } from './enrich.js'

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

/** A hit waiting in the recorder's buffer. */
export interface BufferedHit extends Hit {
  /** epoch milliseconds of the visit */
  at: number
  /** computed on the first write attempt and kept for retries */
  enriched?: EnrichedClick
  /** a human visit of a link: counts toward its live click count until written */
  human: boolean
  /** its record's sequence in the click spool (spool.ts), when the spool is on */
  seq?: number
}

/** How many hits from the head of `hits` make a batch of at most `size` that names at most `subjects` links and QR codes. */
export function batchHead(hits: readonly BufferedHit[], size: number, subjects: number): number {
  const n = Math.min(hits.length, size)
  if (n <= subjects) return n
  const named = new Set<number>()
  for (let i = 0; i < n; i++) {
    const h = hits[i]
    const subject = h.linkId ?? -h.qrId!
    if (named.has(subject)) continue
    if (named.size === subjects) return i
    named.add(subject)
  }
  return n
}
