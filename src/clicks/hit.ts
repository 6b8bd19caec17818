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
