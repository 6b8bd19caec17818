import { and, count, desc, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { campaigns, domains, links, users } from '../../db/schema/index.js'
import { conflict, isUniqueViolation } from '../../http/errors.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Campaign = typeof campaigns.$inferSelect

const slugTaken = () => conflict('That slug is already taken: choose another.', 'slug')

export async function listCampaigns(db: Db, ownerId: number, q: PageQuery) {
  const where = eq(campaigns.userId, ownerId)
  return withTotal(
    q,
    db.select().from(campaigns).where(where).orderBy(desc(campaigns.createdAt), desc(campaigns.id)).limit(q.limit).offset(offsetOf(q)),
    db.select({ total: count() }).from(campaigns).where(where),
  )
}

export async function findOwnedCampaign(db: Db | Tx, ownerId: number, id: number): Promise<Campaign | undefined> {
  const [row] = await db.select().from(campaigns).where(and(eq(campaigns.id, id), eq(campaigns.userId, ownerId)))
  return row
}

export async function createCampaign(db: Db, ownerId: number, input: { name: string; slug: string | null; public: boolean }) {
  try {
    const [row] = await db.insert(campaigns).values({ userId: ownerId, ...input }).returning()
    return row
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken()
    throw err
  }
}

export async function updateCampaign(
  db: Db,
  ownerId: number,
  id: number,
  changes: { name: string; slug?: string | null; public?: boolean },
): Promise<Campaign | undefined> {
  try {
    const [row] = await db
      .update(campaigns)
      .set(changes)
      .where(and(eq(campaigns.id, id), eq(campaigns.userId, ownerId)))
      .returning()
    return row
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken()
    throw err
  }
}

/** Links stay; the FK unassigns them. */
export async function deleteCampaign(db: Db, ownerId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(campaigns)
    .where(and(eq(campaigns.id, id), eq(campaigns.userId, ownerId)))
    .returning({ id: campaigns.id })
  return rows.length > 0
}

export type AssignResult = 'ok' | 'no-campaign' | 'no-link'

/** A link sits in at most one campaign: assigning moves it. Both must be the caller's. */
export async function assignLink(db: Db, ownerId: number, campaignId: number, linkId: number): Promise<AssignResult> {
  const [campaign] = await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.userId, ownerId)))
  if (!campaign) return 'no-campaign'
  const moved = await db
    .update(links)
    .set({ campaignId })
    .where(and(eq(links.id, linkId), eq(links.userId, ownerId)))
    .returning({ id: links.id })
  return moved.length ? 'ok' : 'no-link'
}

/** The public list page: a public campaign of that username (case-insensitive), else undefined. */
export async function findPublicCampaign(db: Db, username: string, id: number) {
  const [row] = await db
    .select({ campaign: campaigns, username: users.username })
    .from(campaigns)
    .innerJoin(users, eq(users.id, campaigns.userId))
    .where(and(eq(campaigns.id, id), eq(campaigns.public, true), sql`lower(${users.username}) = lower(${username})`))
  return row
}

/**
 * Links shown on the public list page: the ones a visitor can still open (not disabled, not
 * expired by date or by clicks), newest first.
 */
export async function listVisibleCampaignLinks(db: Db, campaignId: number, q: PageQuery) {
  const where = and(
    eq(links.campaignId, campaignId),
    eq(links.disabled, false),
    // a quarantined link answers 451: a public list must not advertise it (the rotator passes over it too)
    eq(links.quarantined, false),
    or(isNull(links.expiresAt), gt(links.expiresAt, sql`now()`)),
    or(isNull(links.expirationClicks), eq(links.expirationClicks, 0), sql`${links.clicks} < ${links.expirationClicks}`),
  )
  return withTotal(
    q,
    db
      .select({ link: links, domain: domains.domain })
      .from(links)
      .leftJoin(domains, eq(domains.id, links.domainId))
      .where(where)
      .orderBy(desc(links.createdAt), desc(links.id))
      .limit(q.limit)
      .offset(offsetOf(q)),
    db.select({ total: count() }).from(links).where(where),
  )
}
