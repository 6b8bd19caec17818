import { eq, sql, type SQL } from 'drizzle-orm'
import { isPglite, keepPlanned, type Db } from '../db/client.js'
import { hotName, runHot } from '../db/hot-statements.js'
import { campaigns, domains, LINK_TYPES, linkAliases, linkPixels, links, linkTargets, pages, pixels, type PixelType } from '../db/schema/index.js'
import type { ResolvableLink } from './resolve.js'
import type { DestinationPage } from './respond.js'

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
  /** the page kind of its answer, worked out on the first visit (respond.ts destinationPage) */
  answer: DestinationPage | undefined
  /** epoch ms it was read from the database (the cache's LINK_FRESH is counted from it) */
  loadedAt: number
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

/** The hosts of every branded domain, at most `limit` of them. */
export async function findBrandedHosts(db: Db, limit: number): Promise<string[]> {
  const rows = await db.select({ host: domains.host }).from(domains).limit(limit)
  return rows.map((r) => r.host)
}

export async function findDomainById(db: Db, id: number): Promise<ServeDomain | null> {
  const [row] = await db.select(domainColumns).from(domains).where(eq(domains.id, id))
  return row ?? null
}

/** Links of the default domain have no domain id: 0 stands for it in lookups and cache keys. */
const onDomain = (domainId: number | null, alias: string) =>
  sql`coalesce(${links.domainId}, 0) = ${domainId ?? 0} and ${links.alias} = ${alias}`

// spelled out qualified: drizzle writes a single table's columns unqualified, which inside these
// subqueries would name the subquery's own columns
const linkId = sql.raw('"links"."id"')

/**
 * The link's targets, pixels and page as JSON, computed by the database beside the link row. Most
 * links have none: an index probe answers that, where the aggregate alone costs a sort and a group
 * per link (PGlite, 100,000 links: about a third of a miss's database time).
 */
const extras = {
  targets: sql`case when exists (select 1 from ${linkTargets} t where t.link_id = ${linkId}) then (
    select json_agg(json_build_object('kind', t.kind, 'key', t.key, 'match', t.match, 'url', t.url) order by t.position, t.id)
    from ${linkTargets} t where t.link_id = ${linkId}) end`,
  pixels: sql`case when exists (select 1 from ${linkPixels} lp where lp.link_id = ${linkId}) then (
    select json_agg(json_build_object('id', p.id, 'type', p.type, 'tag', p.tag) order by p.id)
    from ${linkPixels} lp join ${pixels} p on p.id = lp.pixel_id where lp.link_id = ${linkId}) end`,
  page: sql`(
    select json_build_object('id', g.id, 'userId', g.user_id, 'kind', g.kind, 'name', g.name, 'overlayType', g.overlay_type,
      'title', g.title, 'message', g.message, 'imageUrl', g.image_url, 'buttonLabel', g.button_label, 'buttonUrl', g.button_url,
      'countdown', g.countdown, 'settings', g.settings, 'createdAt', g.created_at, 'updatedAt', g.updated_at)
    from ${pages} g where g.id = "links"."page_id")`,
}

type PageJson = Omit<Page, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string }

/**
 * The columns a visit is served from (toServeLink) and the cache counts clicks with: a miss reads
 * nothing else, so neither database parses, nor PGlite's worker hands over, the other fourteen
 * (privacy, health details, timestamps...).
 */
const served = {
  id: links.id, userId: links.userId, domainId: links.domainId, alias: links.alias, url: links.url,
  type: links.type, title: links.title, description: links.description,
  passwordHash: links.passwordHash, disabled: links.disabled, quarantined: links.quarantined,
  expiresAt: links.expiresAt, expirationUrl: links.expirationUrl,
  expirationClicks: links.expirationClicks, metaTitle: links.metaTitle,
  metaDescription: links.metaDescription, metaImage: links.metaImage, deepLink: links.deepLink,
  parameters: links.parameters, campaignId: links.campaignId, lastRotation: links.lastRotation,
  redirectStatus: links.redirectStatus, cacheTtl: links.cacheTtl, healthState: links.healthState,
  fallback: links.fallback, clicks: links.clicks,
}

/** A link row with everything served from it, as one query answers it. */
export type LoadedLink = Pick<LinkRow, keyof typeof served> & {
  targets: { kind: string; key: string | null; match: string | null; url: string }[] | null
  pixels: { id: number; type: PixelType; tag: string }[] | null
  page: PageJson | null
}

/** json from PGlite or pg: parsed already, or (some drivers) still text */
const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v)

/** Every field of a loaded link; the database lists them in this order, after the key's index. */
const loaded = { ...served, ...extras }
const FIELDS = Object.keys(loaded) as (keyof LoadedLink)[]

/**
 * The rows of a load as ONE json text: `[[keyIndex, ...FIELDS], ...]`, or null when none was
 * found. A row of thirty fields cost PGlite's driver (in its worker, which every miss waits for)
 * more than finding the link; one text is handed over as it is and parsed here.
 */
const asJson = (key: SQL) =>
  sql<string | null>`json_agg(json_build_array(${key}, ${sql.join(Object.values(loaded), sql`, `)}))::text`

/** `[keyIndex, link]` pairs from what asJson answered. */
function decode(text: string | null): [number, LoadedLink][] {
  if (text === null) return []
  return (JSON.parse(text) as unknown[][]).map((a) => {
    const row: Record<string, unknown> = {}
    for (let f = 0; f < FIELDS.length; f++) row[FIELDS[f]] = a[f + 1]
    // the one timestamp served: json spells it as text
    if (row.expiresAt !== null) row.expiresAt = new Date(row.expiresAt as string)
    return [a[0] as number, row as unknown as LoadedLink]
  })
}

/** A link by the domain (0 = the default one) and alias a visit asked for. */
export interface AliasKey {
  d: number
  alias: string
}

/**
 * Cache misses in one round trip: for each key, the link its alias serves (its own alias first,
 * else an earlier alias of a link, DECISIONS §10.5) with its targets, pixels, page and stored click
 * counter; undefined where no link has it. Many keys cost one query (miss-loads.ts batches them).
 */
export async function loadLinksByAlias(db: Db, keys: readonly AliasKey[]): Promise<(LoadedLink | undefined)[]> {
  const wanted = JSON.stringify(keys.map((k, i) => ({ i, d: k.d, a: k.alias })))
  const [{ rows }] = await load(db, (q) => q.byAliases.execute({ wanted }))
  const found = new Array<LoadedLink | undefined>(keys.length).fill(undefined)
  for (const [i, link] of decode(rows)) found[i] = link
  return found
}

/** The same by link id (campaign rotator). */
export async function loadLinkById(db: Db, id: number): Promise<LoadedLink | undefined> {
  const [{ rows }] = await load(db, (q) => q.byId.execute({ id }))
  return decode(rows)[0]?.[1]
}

/**
 * The two loads run as named statements on Postgres (db/hot-statements.ts): a miss costs 200 µs
 * of round trip instead of 500.
 */
function load<T>(db: Db, run: (q: LinkLoads) => Promise<T>): Promise<T> {
  return runHot(queriesOf(db), run)
}

/** Both loads, built once per database: drizzle's build of ~40 columns and subselects cost more than the query. */
function buildQueries(db: Db) {
  // the keys as one json parameter ([{i, d, a}]): one statement whatever their number
  const wanted = sql`(
    select k.i, coalesce(
      (select l2.id from ${links} l2 where coalesce(l2.domain_id, 0) = k.d and l2.alias = k.a),
      (select a.link_id from ${linkAliases} a where coalesce(a.domain_id, 0) = k.d and a.alias = k.a limit 1)) as link_id
    from json_to_recordset(${sql.placeholder('wanted')}::json) as k(i int, d int, a text)) wanted`
  const byAliases = db
    .select({ rows: asJson(sql`wanted.i`) })
    .from(links)
    .innerJoin(wanted, sql`wanted.link_id = ${linkId}`)
  const byId = db
    .select({ rows: asJson(sql`0`) })
    .from(links)
    .where(eq(links.id, sql.placeholder('id')))
  const aliasesSql = byAliases.toSQL()
  const idSql = byId.toSQL()
  keepPlanned(db, aliasesSql)
  keepPlanned(db, idSql)
  const loads = (named: boolean) => ({
    byAliases: byAliases.prepare(named ? hotName('kurz_links_by_alias', aliasesSql.sql) : ''),
    byId: byId.prepare(named ? hotName('kurz_link_by_id', idSql.sql) : ''),
  })
  return {
    // PGlite plans them once its own way (keepPlanned); its driver takes no statement names
    named: isPglite(db) ? null : loads(true),
    unnamed: loads(false),
    rotator: db
      .select({
        id: campaigns.id,
        linkIds: sql<number[] | string>`(
          select coalesce(json_agg(l.id), '[]'::json) from ${links} l
          where l.campaign_id = ${sql.raw('"campaigns"."id"')} and not l.disabled and (l.expires_at is null or l.expires_at > ${sql.placeholder('now')}::timestamptz))`,
      })
      .from(campaigns)
      .where(eq(campaigns.slug, sql.placeholder('slug')))
      .prepare(''),
  }
}

type LinkLoads = ReturnType<typeof buildQueries>['unnamed']

const queries = new WeakMap<Db, ReturnType<typeof buildQueries>>()

function queriesOf(db: Db) {
  let q = queries.get(db)
  if (!q) queries.set(db, (q = buildQueries(db)))
  return q
}

// A cache holds up to REDIRECT_CACHE_SIZE links, most with no targets, pixels or parameters: they
// share these (never mutated) instead of empty containers of their own, as they share interned types.
const NO_TARGETS: ServeLink['targets'] = Object.freeze({ device: [], geo: [], language: [], rotation: [] }) as unknown as ServeLink['targets']
for (const list of Object.values(NO_TARGETS)) Object.freeze(list)
const NONE = Object.freeze([]) as unknown as never[]
const TYPES = new Map<string, LinkRow['type']>(LINK_TYPES.map((t) => [t, t]))

const orNone = <T>(list: T[] | null): T[] => (list && list.length > 0 ? list : NONE)

function targetsOf(rows: LoadedLink['targets']): ServeLink['targets'] {
  if (rows === null || rows.length === 0) return NO_TARGETS
  const targets: ServeLink['targets'] = { device: [], geo: [], language: [], rotation: [] }
  for (const t of rows) {
    if (t.kind === 'rotation') targets.rotation.push(t.url)
    else if (t.kind === 'device' || t.kind === 'geo' || t.kind === 'language') targets[t.kind].push({ match: (t.match ?? t.key ?? '').trim(), url: t.url })
  }
  return targets
}

/**
 * A loaded row → the shape a visit is served from; `clicksBase` is the live count when it was read.
 * Only what serving reads is kept (not the privacy settings: the statistics page reads the database).
 */
export function toServeLink(row: LoadedLink, clicksBase: number): ServeLink {
  const targets = targetsOf(row.targets)
  const pj = row.page
  const page: Page | null = pj ? { ...pj, createdAt: new Date(pj.createdAt), updatedAt: new Date(pj.updatedAt) } : null
  return {
    id: row.id,
    userId: row.userId,
    domainId: row.domainId,
    alias: row.alias,
    url: row.url,
    type: TYPES.get(row.type) ?? row.type,
    title: row.title,
    description: row.description,
    passwordHash: row.passwordHash,
    disabled: row.disabled,
    quarantined: row.quarantined,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    expirationUrl: row.expirationUrl,
    expirationClicks: row.expirationClicks,
    metaTitle: row.metaTitle,
    metaDescription: row.metaDescription,
    metaImage: row.metaImage,
    deepLink: row.deepLink,
    parameters: orNone(row.parameters),
    campaignId: row.campaignId,
    targets,
    pixels: orNone(row.pixels),
    page,
    clicksBase,
    localClicks: 0,
    lastRotation: row.lastRotation,
    redirectStatus: row.redirectStatus,
    cacheTtl: row.cacheTtl,
    answer: undefined,
    plainUrl: undefined,
    loadedAt: Date.now(),
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
      locked: sql<boolean>`${links.passwordHash} is not null`,
      quarantined: links.quarantined,
      disabled: links.disabled,
      createdAt: links.createdAt,
      clicks: links.clicks,
      uniqueClicks: links.uniqueClicks,
      botClicks: links.botClicks,
    })
    .from(links)
    .where(onDomain(domainId, alias))
  return row
}

/**
 * The campaign a rotator slug names, with the ids of its links that are enabled and not expired by
 * date (clicks are checked live), in one round trip; null when no campaign has the slug.
 */
export async function findRotator(db: Db, slug: string, now: Date): Promise<{ id: number; linkIds: number[] } | null> {
  const [row] = await queriesOf(db).rotator.execute({ slug, now: now.toISOString() })
  return row ? { id: row.id, linkIds: json(row.linkIds) } : null
}
