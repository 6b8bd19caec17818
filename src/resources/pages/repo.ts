import { and, count, desc, eq } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { domains, links, overlayResponses, pages } from '../../db/schema/index.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Page = typeof pages.$inferSelect
export type PageKind = Page['kind']
export type NewPage = Omit<typeof pages.$inferInsert, 'id' | 'userId' | 'kind' | 'createdAt' | 'updatedAt'>

export async function listPages(db: Db, ownerId: number, kind: PageKind, q: PageQuery) {
  const where = and(eq(pages.userId, ownerId), eq(pages.kind, kind))
  return withTotal(
    q,
    db.select().from(pages).where(where).orderBy(desc(pages.createdAt), desc(pages.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(pages).where(where),
  )
}

export async function findOwnedPage(db: Db | Tx, ownerId: number, kind: PageKind, id: number): Promise<Page | undefined> {
  const [row] = await db
    .select()
    .from(pages)
    .where(and(eq(pages.id, id), eq(pages.userId, ownerId), eq(pages.kind, kind)))
  return row
}

/** The caller's splash page or overlay: the two share one id sequence, so an id names one page. */
export async function findOwnedPageOfAnyKind(db: Db | Tx, ownerId: number, id: number): Promise<Page | undefined> {
  const [row] = await db
    .select()
    .from(pages)
    .where(and(eq(pages.id, id), eq(pages.userId, ownerId)))
  return row
}

/** Inside the caller's transaction (after the plan count check). */
export async function insertPage(tx: Tx, ownerId: number, kind: PageKind, input: NewPage): Promise<Page> {
  const [row] = await tx.insert(pages).values({ ...input, userId: ownerId, kind }).returning()
  return row
}

export async function updatePage(db: Db, ownerId: number, kind: PageKind, id: number, changes: Partial<NewPage>) {
  const rows = await db
    .update(pages)
    .set(changes)
    .where(and(eq(pages.id, id), eq(pages.userId, ownerId), eq(pages.kind, kind)))
    .returning({ id: pages.id })
  return rows.length > 0
}

/** Links whose visit renders this page (their cached entries must go when it changes). */
export async function linksUsingPage(db: Db, pageId: number): Promise<number[]> {
  const rows = await db.select({ id: links.id }).from(links).where(eq(links.pageId, pageId))
  return rows.map((r) => r.id)
}

/**
 * Links that used the page fall back to a direct redirect. The FK would only null `page_id`,
 * leaving `type` naming a page that no longer exists, so both are reset here, in one transaction.
 * Returns those links' ids, or null when the page is not the caller's.
 */
export async function deletePage(db: Db, ownerId: number, kind: PageKind, id: number): Promise<number[] | null> {
  return db.transaction(async (tx) => {
    const [page] = await tx
      .select({ id: pages.id })
      .from(pages)
      .where(and(eq(pages.id, id), eq(pages.userId, ownerId), eq(pages.kind, kind)))
      .for('update')
    if (!page) return null
    const moved = await tx.update(links).set({ type: 'direct', pageId: null }).where(eq(links.pageId, id)).returning({ id: links.id })
    await tx.delete(pages).where(eq(pages.id, id))
    return moved.map((l) => l.id)
  })
}

export async function listResponses(db: Db, pageId: number, q: PageQuery) {
  const where = eq(overlayResponses.pageId, pageId)
  return withTotal(
    q,
    db
      .select()
      .from(overlayResponses)
      .where(where)
      .orderBy(desc(overlayResponses.createdAt), desc(overlayResponses.id))
      .limit(q.limit)
      .offset(offsetOf(q)),
    db.select({ total: count() }).from(overlayResponses).where(where),
  )
}

/** Public side: an overlay that takes submissions (contact or poll), whoever owns it. */
export async function findOverlay(db: Db, id: number): Promise<Page | undefined> {
  const [row] = await db
    .select()
    .from(pages)
    .where(and(eq(pages.id, id), eq(pages.kind, 'overlay')))
  return row
}

/** The link a submission came through: it must be shown with this overlay. */
export async function findLinkShowingOverlay(db: Db, pageId: number, linkId: number) {
  const [row] = await db
    .select({ id: links.id, alias: links.alias, domain: domains.domain })
    .from(links)
    .leftJoin(domains, eq(domains.id, links.domainId))
    .where(and(eq(links.id, linkId), eq(links.pageId, pageId), eq(links.type, 'overlay')))
  return row
}

export async function insertResponse(db: Db, pageId: number, linkId: number | null, data: Record<string, unknown>) {
  const [row] = await db.insert(overlayResponses).values({ pageId, linkId, data }).returning({ id: overlayResponses.id })
  return row.id
}
