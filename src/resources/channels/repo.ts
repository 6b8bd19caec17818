import { and, count, desc, eq, inArray, isNotNull, or } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { channelItems, channels, domains, links, qrCodes, type ChannelItemType } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Channel = typeof channels.$inferSelect

export async function listChannels(db: Db, ownerId: number, q: PageQuery) {
  const where = eq(channels.userId, ownerId)
  return withTotal(
    q,
    db.select().from(channels).where(where).orderBy(desc(channels.createdAt), desc(channels.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(channels).where(where),
  )
}

export async function findOwnedChannel(db: Db, ownerId: number, id: number): Promise<Channel | undefined> {
  const [row] = await db.select().from(channels).where(and(eq(channels.id, id), eq(channels.userId, ownerId)))
  return row
}

/** Which of these ids are the caller's channels. */
export async function findOwnedChannelIds(db: Db | Tx, ownerId: number, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set()
  const rows = await db
    .select({ id: channels.id })
    .from(channels)
    .where(and(eq(channels.userId, ownerId), inArray(channels.id, ids)))
  return new Set(rows.map((r) => r.id))
}

export interface ChannelFields {
  name: string
  description: string
  color: string
  starred: boolean
}

export async function createChannel(db: Db, ownerId: number, input: ChannelFields): Promise<Channel> {
  const [row] = await db.insert(channels).values({ userId: ownerId, ...input }).returning()
  return row
}

export async function updateChannel(db: Db, ownerId: number, id: number, changes: Partial<ChannelFields>): Promise<boolean> {
  if (Object.keys(changes).length === 0) return (await findOwnedChannel(db, ownerId, id)) !== undefined
  const rows = await db
    .update(channels)
    .set(changes)
    .where(and(eq(channels.id, id), eq(channels.userId, ownerId)))
    .returning({ id: channels.id })
  return rows.length > 0
}

/** Its items are unassigned (FK cascade on channel_items); no link or QR code is touched. */
export async function deleteChannel(db: Db, ownerId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(channels)
    .where(and(eq(channels.id, id), eq(channels.userId, ownerId)))
    .returning({ id: channels.id })
  return rows.length > 0
}

/** Whether the item exists and is the caller's; bio pages do not exist yet (DECISIONS §7). */
async function ownsItem(db: Db, ownerId: number, type: ChannelItemType, itemId: number): Promise<boolean> {
  if (type === 'links') {
    const [row] = await db.select({ id: links.id }).from(links).where(and(eq(links.id, itemId), eq(links.userId, ownerId)))
    return row !== undefined
  }
  if (type === 'qr') {
    const [row] = await db.select({ id: qrCodes.id }).from(qrCodes).where(and(eq(qrCodes.id, itemId), eq(qrCodes.userId, ownerId)))
    return row !== undefined
  }
  return false
}

/** Items may sit in several channels; assigning twice is a no-op. */
export async function assignItem(
  db: Db,
  ownerId: number,
  channelId: number,
  type: ChannelItemType,
  itemId: number,
): Promise<'ok' | 'no-channel' | 'no-item'> {
  if (!(await findOwnedChannel(db, ownerId, channelId))) return 'no-channel'
  if (!(await ownsItem(db, ownerId, type, itemId))) return 'no-item'
  await db.insert(channelItems).values({ channelId, itemType: type, itemId }).onConflictDoNothing()
  return 'ok'
}

/**
 * The channel's items, newest assignment first, joined to the live link or QR code (and only the
 * owner's: a row can never show someone else's object).
 */
export async function listChannelItems(db: Db, ownerId: number, channelId: number, q: PageQuery) {
  const linkJoin = and(eq(channelItems.itemType, 'links'), eq(links.id, channelItems.itemId), eq(links.userId, ownerId))
  const qrJoin = and(eq(channelItems.itemType, 'qr'), eq(qrCodes.id, channelItems.itemId), eq(qrCodes.userId, ownerId))
  const where = and(eq(channelItems.channelId, channelId), or(isNotNull(links.id), isNotNull(qrCodes.id)))
  return withTotal(
    q,
    db
      .select({
        type: channelItems.itemType,
        id: channelItems.itemId,
        linkAlias: links.alias,
        linkUrl: links.url,
        linkTitle: links.title,
        linkCreatedAt: links.createdAt,
        linkDomain: domains.domain,
        qrAlias: qrCodes.alias,
        qrType: qrCodes.type,
        qrName: qrCodes.name,
        qrCreatedAt: qrCodes.createdAt,
      })
      .from(channelItems)
      .leftJoin(links, linkJoin)
      .leftJoin(domains, eq(domains.id, links.domainId))
      .leftJoin(qrCodes, qrJoin)
      .where(where)
      .orderBy(desc(channelItems.createdAt), desc(channelItems.itemId))
      .limit(q.limit)
      .offset(offsetOf(q)),
    db.select({ total: count() }).from(channelItems).leftJoin(links, linkJoin).leftJoin(qrCodes, qrJoin).where(where),
  )
}

export type ChannelItemRow = Awaited<ReturnType<typeof listChannelItems>>['rows'][number]
