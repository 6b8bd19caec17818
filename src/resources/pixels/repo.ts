import { and, count, desc, eq, inArray } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { linkPixels, pixels, type PixelType } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Pixel = typeof pixels.$inferSelect

export async function listPixels(db: Db, ownerId: number, q: PageQuery) {
  const where = eq(pixels.userId, ownerId)
  return withTotal(
    q,
    db.select().from(pixels).where(where).orderBy(desc(pixels.createdAt), desc(pixels.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(pixels).where(where),
  )
}

export type NewPixel = { type: PixelType; name: string; tag: string }

/** Inside the caller's transaction (after the plan count check). */
export async function insertPixel(tx: Tx, ownerId: number, input: NewPixel): Promise<Pixel> {
  const [row] = await tx.insert(pixels).values({ userId: ownerId, ...input }).returning()
  return row
}

export async function findOwnedPixel(db: Db, ownerId: number, id: number): Promise<Pixel | undefined> {
  const [row] = await db.select().from(pixels).where(and(eq(pixels.id, id), eq(pixels.userId, ownerId)))
  return row
}

/** Which of these ids are the caller's pixels. */
export async function findOwnedPixelIds(db: Db | Tx, ownerId: number, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set()
  const rows = await db
    .select({ id: pixels.id })
    .from(pixels)
    .where(and(eq(pixels.userId, ownerId), inArray(pixels.id, ids)))
  return new Set(rows.map((r) => r.id))
}

export async function updatePixel(db: Db, ownerId: number, id: number, changes: { name?: string; tag: string }) {
  const rows = await db
    .update(pixels)
    .set(changes)
    .where(and(eq(pixels.id, id), eq(pixels.userId, ownerId)))
    .returning({ id: pixels.id })
  return rows.length > 0
}

/** Returns the links it was attached to (for the redirect cache), or null when not the caller's. */
export async function deletePixel(db: Db, ownerId: number, id: number): Promise<number[] | null> {
  return db.transaction(async (tx) => {
    const [pixel] = await tx
      .select({ id: pixels.id })
      .from(pixels)
      .where(and(eq(pixels.id, id), eq(pixels.userId, ownerId)))
      .for('update')
    if (!pixel) return null
    const attached = await tx.select({ linkId: linkPixels.linkId }).from(linkPixels).where(eq(linkPixels.pixelId, id))
    await tx.delete(pixels).where(eq(pixels.id, id)) // link_pixels rows go with it (FK cascade)
    return attached.map((a) => a.linkId)
  })
}


/** Links the pixel is attached to: their cached visit pages carry its tag. */
export async function linksOfPixel(db: Db, pixelId: number): Promise<number[]> {
  const rows = await db.select({ linkId: linkPixels.linkId }).from(linkPixels).where(eq(linkPixels.pixelId, pixelId))
  return rows.map((r) => r.linkId)
}
