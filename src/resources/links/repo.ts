import { and, asc, count, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { channelItems, domains, linkPixels, links, linkTargets, type TargetKind } from '../../db/schema/index.js'
import { containsText } from '../../db/like.js'
import { prepared, preparedRows } from '../../db/prepared.js'
import { offsetOf, type PageQuery, withTotal } from '../../http/pagination.js'

export type Link = typeof links.$inferSelect
export type Domain = typeof domains.$inferSelect
export type LinkTarget = typeof linkTargets.$inferSelect

const ownedLinkQuery = (db: Db) =>
  db
    .select()
    .from(links)
    .where(and(eq(links.id, sql.placeholder('id')), eq(links.userId, sql.placeholder('userId'))))
    .prepare('')

/** The caller's link, or undefined: ownership is part of the lookup (another account's id matches nothing). */
export async function findOwnedLink(db: Db | Tx, userId: number, id: number): Promise<Link | undefined> {
  const [row] = await prepared(db, ownedLinkQuery).execute({ id, userId })
  return row
}

export interface LinkListQuery extends PageQuery {
  order: 'date' | 'click'
  q?: string
}

/** A page of the caller's links with their branded domain; `q` matches literally, ignoring case. */
export async function listLinks(db: Db, userId: number, query: LinkListQuery) {
  const conditions: SQL[] = [eq(links.userId, userId)]
  if (query.q) {
    const q = query.q
    conditions.push(or(...[links.alias, links.url, links.title, links.description].map((column) => containsText(column, q)))!)
  }
  const where = and(...conditions)
  const order = query.order === 'click' ? [desc(links.clicks), desc(links.id)] : [desc(links.createdAt), desc(links.id)]
  // the page's ids are picked from narrow rows, then its links read by id: a sort by clicks (no
  // index, migration 0013) or a deep page no longer carries every whole link through the sort
  const page = db.select({ id: links.id }).from(links).where(where).orderBy(...order).limit(query.limit).offset(offsetOf(query))
  return withTotal(
    query,
    db
      .select({ link: links, domain: domains })
      .from(links)
      .leftJoin(domains, eq(domains.id, links.domainId))
      .where(inArray(links.id, page))
      .orderBy(...order),
    db.select({ total: count() }).from(links).where(where),
  )
}

/** The caller's link with this alias on this domain (null = the default domain). */
export async function findOwnedLinkByAlias(db: Db, userId: number, domainId: number | null, alias: string): Promise<Link | undefined> {
  const [row] = await db
    .select()
    .from(links)
    .where(and(eq(links.userId, userId), eq(links.alias, alias), domainId === null ? isNull(links.domainId) : eq(links.domainId, domainId)))
  return row
}

/** The caller's link with this alias on any of their domains, the default domain's first. */
export async function findOwnedLinkOnAnyDomain(db: Db, userId: number, alias: string): Promise<Link | undefined> {
  const [row] = await db
    .select()
    .from(links)
    .where(and(eq(links.userId, userId), eq(links.alias, alias)))
    .orderBy(sql`${links.domainId} is not null`, asc(links.id))
    .limit(1)
  return row
}

const domainQuery = (db: Db) =>
  db
    .select()
    .from(domains)
    .where(eq(domains.id, sql.placeholder('id')))
    .prepare('')

export async function findDomain(db: Db | Tx, id: number | null): Promise<Domain | null> {
  if (id === null) return null
  const [row] = await prepared(db, domainQuery).execute({ id })
  return row ?? null
}

export async function ownedDomains(db: Db | Tx, userId: number): Promise<Domain[]> {
  return db.select().from(domains).where(eq(domains.userId, userId))
}

/**
 * A link's targets (in the order they are matched), pixel ids and channel ids, as one statement:
 * the single form was four round trips, and each cost the API more than its query.
 */
const relations = () => {
  // the driver parses the json columns; the keys are LinkTarget's
  const id = sql.placeholder('id')
  const t = linkTargets
  const p = linkPixels
  const c = channelItems
  return sql`select
    (select coalesce(json_agg(json_build_object('id', ${t.id}, 'linkId', ${t.linkId}, 'kind', ${t.kind}, 'key', ${t.key},
      'match', ${t.match}, 'url', ${t.url}, 'position', ${t.position}) order by ${t.kind}, ${t.position}), '[]')
      from ${t} where ${t.linkId} = ${id}) as "targets",
    (select coalesce(json_agg(${p.pixelId} order by ${p.pixelId}), '[]') from ${p} where ${p.linkId} = ${id}) as "pixelIds",
    (select coalesce(json_agg(${c.channelId} order by ${c.channelId}), '[]')
      from ${c} where ${c.itemType} = 'links' and ${c.itemId} = ${id}) as "channelIds"`
}

/** Everything the single form shows beside the row itself. */
export async function linkRelations(db: Db, link: Link) {
  const [domain, [rel]] = await Promise.all([
    findDomain(db, link.domainId),
    preparedRows<{ targets: LinkTarget[]; pixelIds: number[]; channelIds: number[] }>(db, relations).execute({ id: link.id }),
  ])
  return { domain, ...rel }
}

export type LinkRelations = Awaited<ReturnType<typeof linkRelations>>

export function targetsOf(targets: LinkTarget[], kind: TargetKind): LinkTarget[] {
  return targets.filter((t) => t.kind === kind)
}

/** Kinds of target a link has, for v1's derived `target_type`. */
export async function targetKinds(db: Db | Tx, linkId: number): Promise<Set<TargetKind>> {
  const rows = await db.selectDistinct({ kind: linkTargets.kind }).from(linkTargets).where(eq(linkTargets.linkId, linkId))
  return new Set(rows.map((r) => r.kind))
}

/** The caller's link, locked until the transaction ends: an update reads and writes it without a race. */
export async function lockOwnedLink(tx: Tx, userId: number, id: number): Promise<Link | undefined> {
  const [row] = await tx
    .select()
    .from(links)
    .where(and(eq(links.id, id), eq(links.userId, userId)))
    .for('update')
  return row
}

export async function countLinks(db: Db | Tx, userId: number): Promise<number> {
  const [{ n }] = await db.select({ n: count() }).from(links).where(eq(links.userId, userId))
  return n
}

/** One kind of a link's targets, in their order. */
export async function targetsOfKind(db: Db | Tx, linkId: number, kind: TargetKind): Promise<{ key: string | null; url: string }[]> {
  return db
    .select({ key: linkTargets.key, url: linkTargets.url })
    .from(linkTargets)
    .where(and(eq(linkTargets.linkId, linkId), eq(linkTargets.kind, kind)))
    .orderBy(linkTargets.position)
}

export async function pixelIdsOf(db: Db | Tx, linkId: number): Promise<number[]> {
  const rows = await db.select({ id: linkPixels.pixelId }).from(linkPixels).where(eq(linkPixels.linkId, linkId))
  return rows.map((r) => r.id)
}

/** Channel items are polymorphic (no FK), so a deleted link's rows go in the same transaction. */
export async function deleteChannelItemsOf(tx: Db | Tx, linkIds: number[]) {
  if (!linkIds.length) return
  await tx.delete(channelItems).where(and(eq(channelItems.itemType, 'links'), inArray(channelItems.itemId, linkIds)))
}

/** The health columns of the caller's links among `ids` (others' ids match nothing). */
export async function healthOfOwned(db: Db, userId: number, ids: number[]) {
  if (!ids.length) return []
  return db
    .select({ id: links.id, healthState: links.healthState, healthStatus: links.healthStatus, healthReason: links.healthReason, checkedAt: links.checkedAt, quarantined: links.quarantined })
    .from(links)
    .where(and(eq(links.userId, userId), inArray(links.id, ids)))
    .orderBy(asc(links.id))
}
