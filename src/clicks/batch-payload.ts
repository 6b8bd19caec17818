import type { EnrichedClick } from './enrich.js'
import type { BufferedHit } from './hit.js'

/**
 * The arguments of write_click_batch() (migration 0007 describes them). JavaScript does what is
 * cheap here and dear in SQL: each distinct enrichment is sent once (repeated visitors share one
 * object, enrich.ts) and each row carries its place in its owner's monthly quota. Rollups, totals,
 * uniques, hourly buckets and counters are derived by the function from one parse of the rows:
 * shipped pre-expanded (8 rollup rows a click over many links) they cost more to parse than to
 * derive. Absent ids are left out of the JSON rather than sent as null.
 */

/** The click spool's part: whose mark, the batch's highest sequence, its lowest when a replay must be checked. */
export interface SpoolPart {
  instance: string
  top: number
  lowest?: number
}

export interface BatchArgs {
  /** jsonb: spool mark, the links and QR codes to lock, quota groups, rotations served */
  batch: string
  /** json: one row per hit */
  clicks: string
  /** json: the distinct enrichments the rows name */
  enriched: string
}

interface QuotaGroup {
  i: number
  user_id: number
  month: string
  count: number
}

export function batchArgs(hits: readonly BufferedHit[], spool: SpoolPart | undefined): BatchArgs {
  const links = new Set<number>()
  const qrs = new Set<number>()
  const quota = new Map<string, QuotaGroup>()
  const rotations = new Map<number, number>()
  const index = new Map<EnrichedClick, number>()
  const enriched: Record<string, unknown>[] = []
  const clicks = hits.map((h) => {
    const e = h.enriched!
    let i = index.get(e)
    if (i === undefined) {
      index.set(e, (i = enriched.length))
      enriched.push({ i, day: e.day, country: e.country, referrer: e.referrer, social: e.social, browser: e.browser, os: e.os, device: e.device, language: e.language, bot: e.bot, hash: e.visitorHash })
    }
    const month = e.day.slice(0, 7)
    const k = `${h.userId}|${month}`
    let g = quota.get(k)
    if (!g) quota.set(k, (g = { i: quota.size, user_id: h.userId, month, count: 0 }))
    if (h.linkId !== undefined) links.add(h.linkId)
    if (h.qrId !== undefined) qrs.add(h.qrId)
    // the last rotation position served in the batch is the link's (links.last_rotation)
    if (h.linkId !== undefined && h.rotation !== undefined) rotations.set(h.linkId, h.rotation)
    return { l: h.linkId, q: h.qrId, s: h.source, t: h.at, e: i, g: g.i, n: g.count++ }
  })
  const batch = { spool, links: [...links], qrs: [...qrs], quota: [...quota.values()], rotations: [...rotations].map(([id, r]) => ({ id, r })) }
  return {
    batch: JSON.stringify(batch),
    clicks: JSON.stringify(clicks),
    enriched: JSON.stringify(enriched),
  }
}
