import type { BatchHook } from '../../clicks/batch.js'
import type { ClickEventBacklog } from './backlog.js'
import { enqueueClickEvents } from './outbox.js'
import type { WebhookSubscriptions } from './subscriptions.js'

/**
 * The click batch's hook: `link.clicked` / `qr.scanned` with what enrichment found, never the IP.
 * `active` says whether any webhook may want click events (this instance's copy of the
 * subscriptions): while none does, a batch needs no transaction around its one statement. A webhook
 * gets click events from when this instance has heard of it: at once through Redis, within
 * subscriptions.ts's LOCAL_TTL without.
 */
export function clickEvents(publicUrl: string, subscriptions: WebhookSubscriptions, backlog: ClickEventBacklog): BatchHook {
  return {
    active: () => subscriptions.wantsAny('link.clicked') || subscriptions.wantsAny('qr.scanned'),
    write: (tx, hits) =>
      enqueueClickEvents(
        tx,
        publicUrl,
        backlog,
        hits.map((h) => {
          const e = h.enriched!
          return { linkId: h.linkId, qrId: h.qrId, userId: h.userId, at: h.at, bot: e.bot, country: e.country, device: e.device, browser: e.browser, os: e.os, referrer: e.referrer, language: e.language }
        }),
      ),
  }
}
