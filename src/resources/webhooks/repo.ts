import { and, count, desc, eq, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { webhookDeliveries, webhooks, type WebhookEvent } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Webhook = typeof webhooks.$inferSelect
export type Delivery = typeof webhookDeliveries.$inferSelect

export async function listWebhooks(db: Db, ownerId: number, q: PageQuery) {
  const where = eq(webhooks.userId, ownerId)
  return withTotal(
    q,
    db.select().from(webhooks).where(where).orderBy(desc(webhooks.createdAt), desc(webhooks.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(webhooks).where(where),
  )
}

/** Counts the owner's webhooks, holding the owner's row so two racing adds cannot both pass the cap. */
export async function countWebhooks(tx: Tx, ownerId: number): Promise<number> {
  await tx.execute(sql`select id from users where id = ${ownerId} for update`)
  const [{ n }] = await tx.select({ n: count() }).from(webhooks).where(eq(webhooks.userId, ownerId))
  return n
}

export async function findOwnedWebhook(db: Db | Tx, ownerId: number, id: number): Promise<Webhook | undefined> {
  const [row] = await db.select().from(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.userId, ownerId)))
  return row
}

export async function insertWebhook(db: Db | Tx, ownerId: number, values: { url: string; events: WebhookEvent[]; description: string | null; secret: string }) {
  const [row] = await db.insert(webhooks).values({ userId: ownerId, ...values }).returning()
  return row
}

export type WebhookChanges = Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'secret' | 'enabled' | 'disabledReason' | 'failingSince'>>

export async function updateWebhook(db: Db | Tx, ownerId: number, id: number, changes: WebhookChanges): Promise<boolean> {
  const [row] = await db
    .update(webhooks)
    .set(changes)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, ownerId)))
    .returning({ id: webhooks.id })
  return row !== undefined
}

export async function deleteWebhook(db: Db, ownerId: number, id: number): Promise<boolean> {
  const [row] = await db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, ownerId)))
    .returning({ id: webhooks.id })
  return row !== undefined
}

/** The deliveries of one of the owner's webhooks, newest first (the caller checked ownership). */
export async function listDeliveries(db: Db, webhookId: number, q: PageQuery) {
  const where = eq(webhookDeliveries.webhookId, webhookId)
  return withTotal(
    q,
    db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(webhookDeliveries).where(where),
  )
}

/**
 * Queues one more attempt of a delivery now; false when it is not one of that webhook's, or the
 * webhook is disabled (it would send nothing). A delivery already pending just comes due now. A
 * manual retry is a single attempt: no new backoff series. A delivered one is sent again, and
 * stays delivered if that attempt fails (deliver.ts `settle`).
 */
export async function retryDelivery(db: Db, webhookId: number, deliveryId: number): Promise<boolean> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ status: 'pending', nextAttemptAt: sql`now()`, manual: sql`${webhookDeliveries.status} <> 'pending'` })
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.webhookId, webhookId),
        sql`exists (select 1 from webhooks w where w.id = ${webhookId} and w.enabled)`,
      ),
    )
    .returning({ id: webhookDeliveries.id })
  return row !== undefined
}

export async function hasDelivery(db: Db, webhookId: number, deliveryId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
  return row !== undefined
}
