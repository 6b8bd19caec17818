import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, index, integer, pgTable, smallint, text } from 'drizzle-orm/pg-core'
import { at, createdAt, id, updatedAt } from './columns.js'
import { users } from './users.js'

export const WEBHOOK_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked', 'qr.created', 'qr.scanned', 'link.health'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const webhooks = pgTable(
  'webhooks',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    url: text().notNull(),
    events: text().array().$type<WebhookEvent[]>().notNull(),
    description: text(),
    /** shown to the owner: receivers check Kurz-Signature with it */
    secret: text().notNull(),
    enabled: boolean().notNull().default(true),
    /** why the service switched it off (3 days of failures); null when the owner did, or it is on */
    disabledReason: text(),
    /** first failed attempt of the current run of failures; null after a success */
    failingSince: at(),
    /** click events not queued because the account's backlog was full (outbox.ts), and the last time */
    clickEventsSkipped: bigint({ mode: 'number' }).notNull().default(0),
    clickEventsSkippedAt: at(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhooks_user_idx').on(t.userId, t.createdAt)],
)

/**
 * The outbox: one row per (webhook, event), written in the same transaction as the change that
 * caused it, claimed by whichever instance gets it first (FOR UPDATE SKIP LOCKED) and kept after
 * delivery so the owner can read and retry it. `data` is JSON text, not jsonb, so the bytes signed
 * and sent keep the order they were written in.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial({ mode: 'number' }).primaryKey(),
    webhookId: integer().notNull().references(() => webhooks.id, { onDelete: 'cascade' }),
    event: text({ enum: WEBHOOK_EVENTS }).notNull(),
    data: text().notNull(),
    status: text({ enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: smallint().notNull().default(0),
    responseStatus: smallint(),
    /** why the last attempt failed, as a sentence fragment */
    error: text(),
    /** when it is due; while an instance holds it, the end of that instance's lease */
    nextAttemptAt: at().notNull().defaultNow(),
    /** a retry asked for by the owner: one attempt, then delivered or failed again */
    manual: boolean().notNull().default(false),
    createdAt: createdAt(),
    deliveredAt: at(),
  },
  (t) => [
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.id),
    // each webhook's due deliveries, oldest first (deliver.ts claims a few per account); what the
    // click writer counts to know an account's backlog (backlog.ts); /metrics' queue depth
    index('webhook_deliveries_pending_idx').on(t.webhookId, t.nextAttemptAt, t.id).where(sql`${t.status} = 'pending'`),
    // /metrics counts failed deliveries without reading the delivered ones kept beside them
    index('webhook_deliveries_failed_idx').on(t.webhookId).where(sql`${t.status} = 'failed'`),
  ],
)
