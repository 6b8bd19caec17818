import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { campaigns, domains, linkAliases, linkPixels, links, linkTargets, pages, pixels, type PixelType } from '../db/schema/index.js'
import type { ResolvableLink } from './resolve.js'

/** The redirect's reads: database rows → the shapes a visit is served from. No caching here. */

export type Page = typeof pages.$inferSelect
export type LinkRow = typeof links.$inferSelect

export interface ServeTarget {
  /** normalised key: ISO country code, device name or language code */
  match: string
  url: string
}

/**
 * Everything a visit of a link needs, loaded once and served from memory: what the pure resolve
 * step reads, plus what answering and recording need.
 */
export interface ServeLink extends ResolvableLink {
  id: number
  userId: number
  domainId: number | null
  alias: string
  title: string | null
  description: string | null
  privacy: number
  privacyPasswordHash: string | null
  campaignId: number | null
  targets: { device: ServeTarget[]; geo: ServeTarget[]; language: ServeTarget[]; rotation: string[] }
  pixels: { id: number; type: PixelType; tag: string }[]
  /** the custom splash page or overlay of type 'splash-page' / 'overlay' */
  page: Page | null
  /** human clicks in the database when loaded, plus those still buffered then */
  clicksBase: number
  /** human clicks this instance recorded since it loaded the link */
  localClicks: number
  /** status of a `direct` answer; null = REDIRECT_STATUS */
  redirectStatus: number | null
  /** seconds a `direct` answer may be cached (0 = not at all) */
  cacheTtl: number
}

/** The live click count: expiry by `expiration_clicks` must not wait for a cache reload or a flush. */
export const liveClicks = (link: ServeLink) => link.clicksBase + link.localClicks

export interface ServeDomain {
  id: number
  /** scheme + host, as short URLs on it start */
  origin: string
  host: string
  redirectRoot: string | null
  redirect404: string | null
}

const domainColumns = { id: domains.id, origin: domains.domain, host: domains.host, redirectRoot: domains.redirectRoot, redirect404: domains.redirect404 }

/** A branded domain by its host[:port] as stored (see servedHost). */
export async function findDomainByHost(db: Db, host: string): Promise<ServeDomain | null> {
  const [row] = await db.select(domainColumns).from(domains).where(eq(domains.host, host))
  return row ?? null
}

export async function findDomainById(db: Db, id: number): Promise<ServeDomain | null> {
  const [row] = await db.select(domainColumns).from(domains).where(eq(domains.id, id))
  return row ?? null
}

/** Links of the default domain have no domain id: 0 stands for it in lookups and cache keys. */
const onDomain = (domainId: number | null, alias: string) =>
  sql`coalesce(${links.domainId}, 0) = ${domainId ?? 0} and ${links.alias} = ${alias}`

/** A link row by its domain (null = default) and alias, case-sensitive. */
export async function findLinkRow(db: Db, domainId: number | null, alias: string): Promise<LinkRow | undefined> {
  const [row] = await db.select().from(links).where(onDomain(domainId, alias))
  return row
}

/**
 * The link an alias serves on a domain: its own alias first, else an earlier alias of a link
 * (alias history, DECISIONS §10.5). The second lookup runs only on a miss of the first.
 */
export async function findLinkRowByAnyAlias(db: Db, domainId: number | null, alias: string): Promise<LinkRow | undefined> {
  const row = await findLinkRow(db, domainId, alias)
  if (row) return row
  const [old] = await db
    .select({ link: links })
    .from(linkAliases)
    .innerJoin(links, eq(links.id, linkAliases.linkId))
    .where(sql`coalesce(${linkAliases.domainId}, 0) = ${domainId ?? 0} and ${linkAliases.alias} = ${alias}`)
  return old?.link
}

export async function findLinkRowById(db: Db, id: number): Promise<LinkRow | undefined> {
  const [row] = await db.select().from(links).where(eq(links.id, id))
  return row
}

/** The human clicks stored for a link (its counter). */
export async function storedClicks(db: Db, linkId: number): Promise<number> {
  const [row] = await db.select({ clicks: links.clicks }).from(links).where(eq(links.id, linkId))
  return row?.clicks ?? 0
}

/**
 * A link row with its targets, pixels and page, as served. `countClicks` runs last and nothing is
 * awaited after it, so the caller can cache the result before another click is recorded.
 */
export async function loadServeLink(db: Db, row: LinkRow, countClicks: (linkId: number) => Promise<number>): Promise<ServeLink> {
  const [targetRows, pixelRows, pageRows] = await Promise.all([
    db.select().from(linkTargets).where(eq(linkTargets.linkId, row.id)).orderBy(asc(linkTargets.position), asc(linkTargets.id)),
    db
      .select({ id: pixels.id, type: pixels.type, tag: pixels.tag })
      .from(linkPixels)
      .innerJoin(pixels, eq(pixels.id, linkPixels.pixelId))
      .where(eq(linkPixels.linkId, row.id))
      .orderBy(asc(pixels.id)),
    row.pageId ? db.select().from(pages).where(eq(pages.id, row.pageId)) : Promise.resolve([] as Page[]),
  ])
  const targets: ServeLink['targets'] = { device: [], geo: [], language: [], rotation: [] }
  for (const t of targetRows) {
    if (t.kind === 'rotation') targets.rotation.push(t.url)
    else targets[t.kind].push({ match: (t.match ?? t.key ?? '').trim(), url: t.url })
  }
  const clicksBase = await countClicks(row.id)
  return {
    id: row.id,
    userId: row.userId,
    domainId: row.domainId,
    alias: row.alias,
    url: row.url,
    type: row.type,
    title: row.title,
    description: row.description,
    passwordHash: row.passwordHash,
    privacy: row.privacy,
    privacyPasswordHash: row.privacyPasswordHash,
    disabled: row.disabled,
    quarantined: row.quarantined,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    expirationUrl: row.expirationUrl,
    expirationClicks: row.expirationClicks,
    metaTitle: row.metaTitle,
    metaDescription: row.metaDescription,
    metaImage: row.metaImage,
    deepLink: row.deepLink,
    parameters: row.parameters ?? [],
    campaignId: row.campaignId,
    targets,
    pixels: pixelRows,
    page: pageRows[0] ?? null,
    clicksBase,
    localClicks: 0,
    lastRotation: row.lastRotation,
    redirectStatus: row.redirectStatus,
    cacheTtl: row.cacheTtl,
    broken: row.healthState === 'broken',
    fallback: row.fallback,
  }
}

/**
 * What the `/<alias>+` statistics page needs, read from the database rather than the cache so a
 * private link and a missing one cost the same.
 */
export async function findStatsLink(db: Db, domainId: number | null, alias: string) {
  const [row] = await db
    .select({
      id: links.id,
      alias: links.alias,
      url: links.url,
      title: links.title,
      privacy: links.privacy,
      hash: links.privacyPasswordHash,
      quarantined: links.quarantined,
      createdAt: links.createdAt,
    })
    .from(links)
    .where(onDomain(domainId, alias))
  return row
}

/** The id of the campaign a rotator slug names. */
export async function findCampaignId(db: Db, slug: string): Promise<number | null> {
  const [row] = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.slug, slug))
  return row?.id ?? null
}

/** Ids of the campaign's links that are enabled and not expired by date (clicks are checked live). */
export async function activeCampaignLinkIds(db: Db, campaignId: number, now: Date): Promise<number[]> {
  const rows = await db
    .select({ id: links.id })
    .from(links)
    .where(and(eq(links.campaignId, campaignId), eq(links.disabled, false), or(isNull(links.expiresAt), gt(links.expiresAt, now))))
  return rows.map((r) => r.id)
}
