import type { EnrichedClick } from './enrich.js'
import type { BufferedHit } from './hit.js'

/**
 * The arguments of write_click_batch() (migrations 0007 and 0010 describe them). JavaScript does
 * what is cheap here and dear in SQL: each distinct enrichment is sent once (repeated visitors share
 * one object, enrich.ts) and each row carries its place in its owner's monthly quota. Rollups,
 * totals, uniques, hourly buckets and counters are derived by the function from one read of the
 * rows: shipped pre-expanded (8 rollup rows a click over many links) they cost more to parse than
 * to derive. The rows go as parallel array literals, one per column, which Postgres reads for
 * less than half of what a JSON object a row costs it.
 */

/** The click spool's part: whose mark, the batch's highest sequence, its lowest when a replay must be checked. */
export interface SpoolPart {
  instance: string
  top: number
  lowest?: number
}

/** Array literals, one element per click: what `unnest` in write_click_batch() turns back into rows. */
export interface ClickColumns {
  /** integer[]: the link visited, NULL for a QR scan of a page */
  link: string
  /** integer[]: the QR code scanned, NULL for a link visit */
  qr: string
  /** text[]: link | rotator | qr */
  source: string
  /** bigint[]: epoch milliseconds */
  at: string
  /** integer[]: its enrichment's index in `enriched` */
  enrichment: string
  /** integer[]: its quota group's index in batch.quota */
  quota: string
  /** integer[]: its place in that group: rows at or beyond the room left are not kept */
  place: string
}

export interface BatchArgs extends ClickColumns {
  /** jsonb: spool mark, the links and QR codes to lock, quota groups, rotations served */
  batch: string
  /** json: the distinct enrichments the rows name */
  enriched: string
}

/**
 * `{1,NULL,3}`: ids and counts need no quoting, and sources are plain words. Joined in one go: a
 * value at a time, a batch of 2,000 made some 28,000 intermediate strings.
 */
const literal = (values: readonly (number | string)[]) => `{${values.join(',')}}`

interface QuotaGroup {
  i: number
  user_id: number
  month: string
  count: number
}

export function batchArgs(hits: readonly BufferedHit[], spool: SpoolPart | undefined): BatchArgs {
  const links = new Set<number>()
  const qrs = new Set<number>()
  // quota groups by owner, then month: found without a string made per click
  const quota = new Map<number, Map<string, QuotaGroup>>()
  const groups: QuotaGroup[] = []
  const rotations = new Map<number, number>()
  const index = new Map<EnrichedClick, number>()
  const enriched: Record<string, unknown>[] = []
  /** each enrichment's month, by its index */
  const months: string[] = []
  const n = hits.length
  const cols = { link: new Array<number | 'NULL'>(n), qr: new Array<number | 'NULL'>(n), source: new Array<string>(n), at: new Array<number>(n), enrichment: new Array<number>(n), quota: new Array<number>(n), place: new Array<number>(n) }
  for (let k = 0; k < n; k++) {
    const h = hits[k]
    const e = h.enriched!
    let i = index.get(e)
    if (i === undefined) {
      index.set(e, (i = enriched.length))
      enriched.push({ i, day: e.day, country: e.country, referrer: e.referrer, social: e.social, browser: e.browser, os: e.os, device: e.device, language: e.language, bot: e.bot, hash: e.visitorHash })
      months.push(e.day.slice(0, 7))
    }
    const month = months[i]
    let owner = quota.get(h.userId)
    if (!owner) quota.set(h.userId, (owner = new Map()))
    let g = owner.get(month)
    if (!g) {
      owner.set(month, (g = { i: groups.length, user_id: h.userId, month, count: 0 }))
      groups.push(g)
    }
    if (h.linkId !== undefined) links.add(h.linkId)
    if (h.qrId !== undefined) qrs.add(h.qrId)
    // the last rotation position served in the batch is the link's (links.last_rotation)
    if (h.linkId !== undefined && h.rotation !== undefined) rotations.set(h.linkId, h.rotation)
    cols.link[k] = h.linkId ?? 'NULL'
    cols.qr[k] = h.qrId ?? 'NULL'
    cols.source[k] = h.source
    cols.at[k] = h.at
    cols.enrichment[k] = i
    cols.quota[k] = g.i
    cols.place[k] = g.count++
  }
  const batch = { spool, links: [...links], qrs: [...qrs], quota: groups, rotations: [...rotations].map(([id, r]) => ({ id, r })) }
  return {
    batch: JSON.stringify(batch),
    link: literal(cols.link),
    qr: literal(cols.qr),
    source: literal(cols.source),
    at: literal(cols.at),
    enrichment: literal(cols.enrichment),
    quota: literal(cols.quota),
    place: literal(cols.place),
    enriched: JSON.stringify(enriched),
  }
}
