import type { BatchHook } from '../../clicks/batch.js'
import { enqueueClickEvents } from './outbox.js'

/** The click batch's hook: `link.clicked` / `qr.scanned` with what enrichment found, never the IP. */
export function clickEvents(publicUrl: string): BatchHook {
  return (tx, hits) =>
    enqueueClickEvents(
      tx,
      publicUrl,
      hits.map((h) => {
        const e = h.enriched!
        return { linkId: h.linkId, qrId: h.qrId, userId: h.userId, at: h.at, bot: e.bot, country: e.country, device: e.device, browser: e.browser, os: e.os, referrer: e.referrer, language: e.language }
      }),
    )
}
