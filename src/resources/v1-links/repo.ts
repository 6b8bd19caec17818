import { and, asc, count, desc, eq, exists, inArray, isNotNull, lte, or, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client.js'
import { containsText } from '../../db/like.js'
import { offsetOf, withTotal } from '../../http/pagination.js'
import { channelItems, channels, domains, links, linkPixels, linkTargets, pixels } from '../../db/schema/index.js'
import { STATUS, type ListQuery } from './schemas.js'

export type LinkRow = typeof links.$inferSelect

/** Expired: past `ends_at`, or a click cap that has been reached (DECISIONS §8). */
export const expiredSql = (now: Date): SQL =>
  or(
    and(isNotNull(links.expiresAt), lte(links.expiresAt, now)),
    // coalesce keeps the whole expression true/false, never NULL, so `not (…)` selects the active ones
    and(sql`coalesce(${links.expirationClicks}, 0) > 0`, sql`${links.clicks} >= ${links.expirationClicks}`),
  )!

/** GET /api/v1/links: one page of the caller's links and the total, filtered and sorted. */
export async function listLinks(db: Db, userId: number, q: ListQuery, now = new Date()): Promise<{ rows: LinkRow[]; total: number }> {
  const where: (SQL | undefined)[] = [eq(links.userId, userId)]
  if (q.search !== undefined) {
    // the columns themselves (a null title matches no search), so their trigram indexes serve it (migration 0014)
    const term = q.search
    const columns = q.by === 'any' ? [links.alias, links.url, links.title] : [q.by === 'alias' ? links.alias : q.by === 'url' ? links.url : links.title]
    where.push(or(...columns.map((column) => containsText(column, term))))
  }
  if (q.status === STATUS.active) where.push(eq(links.disabled, false), sql`not (${expiredSql(now)})`)
  else if (q.status === STATUS.expired) where.push(expiredSql(now))
  else if (q.status === STATUS.disabled) where.push(eq(links.disabled, true))
  if (q.space !== undefined) {
    where.push(
      exists(
        db
          .select({ one: sql`1` })
          .from(channelItems)
          .where(and(eq(channelItems.channelId, q.space), eq(channelItems.itemType, 'links'), eq(channelItems.itemId, links.id))),
      ),
    )
  }
  if (q.domain !== undefined) where.push(eq(links.domainId, q.domain))
  if (q.campaign !== undefined) where.push(eq(links.campaignId, q.campaign))
  if (q.pixel !== undefined) {
    where.push(
      exists(db.select({ one: sql`1` }).from(linkPixels).where(and(eq(linkPixels.pixelId, q.pixel), eq(linkPixels.linkId, links.id)))),
    )
  }
  const filter = and(...where)
  const order =
    q.sort === 'asc'
      ? [asc(links.id)]
      : q.sort === 'max'
        ? [desc(links.clicks), desc(links.id)]
        : q.sort === 'min'
          ? [asc(links.clicks), desc(links.id)]
          : [desc(links.id)]
  const page = { limit: q.per_page, page: q.page }
  // the page's ids from narrow rows, then its links by id (as resources/links/repo.ts listLinks)
  const ids = db.select({ id: links.id }).from(links).where(filter).orderBy(...order).limit(page.limit).offset(offsetOf(page))
  return withTotal(
    page,
    db
      .select()
      .from(links)
      .where(inArray(links.id, ids))
      .orderBy(...order),
    db.select({ total: count() }).from(links).where(filter),
  )
}

export interface Related {
  targets: Map<number, (typeof linkTargets.$inferSelect)[]>
  pixels: Map<number, { id: number; name: string; type: string }[]>
  space: Map<number, { id: number; name: string; color: string }>
  domains: Map<number, { id: number; name: string; host: string; domain: string }>
}

/** Everything a v1 Link shows beside its own row, for a page of links at once (four queries). */
export async function loadRelated(db: Db, rows: LinkRow[]): Promise<Related> {
  const ids = rows.map((r) => r.id)
  const domainIds = [...new Set(rows.map((r) => r.domainId).filter((d): d is number => d !== null))]
  const related: Related = { targets: new Map(), pixels: new Map(), space: new Map(), domains: new Map() }
  if (!ids.length) return related
  const [targetRows, pixelRows, spaceRows, domainRows] = await Promise.all([
    db
      .select()
      .from(linkTargets)
      .where(inArray(linkTargets.linkId, ids))
      .orderBy(asc(linkTargets.linkId), asc(linkTargets.position), asc(linkTargets.id)),
    db
      .select({ linkId: linkPixels.linkId, id: pixels.id, name: pixels.name, type: pixels.type })
      .from(linkPixels)
      .innerJoin(pixels, eq(pixels.id, linkPixels.pixelId))
      .where(inArray(linkPixels.linkId, ids))
      .orderBy(asc(linkPixels.linkId), asc(pixels.id)),
    db
      .select({ linkId: channelItems.itemId, userId: channels.userId, id: channels.id, name: channels.name, color: channels.color })
      .from(channelItems)
      .innerJoin(channels, eq(channels.id, channelItems.channelId))
      .where(and(eq(channelItems.itemType, 'links'), inArray(channelItems.itemId, ids)))
      // a link may sit in several channels; v1 shows one space: the one it joined first
      .orderBy(asc(channelItems.itemId), asc(channelItems.createdAt), asc(channels.id)),
    domainIds.length
      ? db.select({ id: domains.id, host: domains.host, domain: domains.domain }).from(domains).where(inArray(domains.id, domainIds))
      : Promise.resolve([]),
  ])
  for (const t of targetRows) {
    const list = related.targets.get(t.linkId) ?? []
    list.push(t)
    related.targets.set(t.linkId, list)
  }
  for (const p of pixelRows) {
    const list = related.pixels.get(p.linkId) ?? []
    list.push({ id: p.id, name: p.name, type: p.type })
    related.pixels.set(p.linkId, list)
  }
  const owner = new Map(rows.map((r) => [r.id, r.userId]))
  for (const s of spaceRows) {
    if (!related.space.has(s.linkId) && owner.get(s.linkId) === s.userId) {
      related.space.set(s.linkId, { id: s.id, name: s.name, color: s.color })
    }
  }
  for (const d of domainRows) related.domains.set(d.id, { id: d.id, name: d.host, host: d.host, domain: d.domain })
  return related
}

/** Target counts per kind of one link (reading an update body needs them). */
export async function targetCounts(db: Db, linkId: number) {
  const rows = await db
    .select({ kind: linkTargets.kind, n: count() })
    .from(linkTargets)
    .where(eq(linkTargets.linkId, linkId))
    .groupBy(linkTargets.kind)
  const counts = { geo: 0, device: 0, language: 0, rotation: 0 }
  for (const r of rows) counts[r.kind] = Number(r.n)
  return counts
}
