import { toTimestamp } from '../../http/format.js'
import type { Delivery, Webhook } from './repo.js'

/** A webhook object (DECISIONS §10.3); `disabledReason` says why the service switched it off. */
export function presentWebhook(w: Webhook) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description ?? '',
    secret: w.secret,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    // click events not queued while the account's backlog was full (backlog.ts)
    clickEventsSkipped: w.clickEventsSkipped,
    clickEventsSkippedAt: w.clickEventsSkippedAt && toTimestamp(w.clickEventsSkippedAt),
    date: toTimestamp(w.createdAt),
  }
}

/** An item of `data.deliveries`; `error` says why the last attempt failed. */
export function presentDelivery(d: Delivery) {
  return {
    id: d.id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    error: d.error,
    date: toTimestamp(d.createdAt),
    nextAttempt: d.status === 'pending' ? toTimestamp(d.nextAttemptAt) : null,
  }
}
