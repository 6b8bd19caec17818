import { sql } from 'drizzle-orm'
import { isPglite, keepPlanned, type Db, type Tx } from '../../db/client.js'
import { hotName, runHot, type HotStatement } from '../../db/hot-statements.js'
import { linkAliases, links, PRIVACY, webhooks } from '../../db/schema/index.js'
import { blockedSql, blockInputs } from '../blocklist/repo.js'
import type { Link } from './repo.js'

/*
 * The link INSERT, with the checks that would each cost a query of their own held inside it as
 * guards: no earlier alias of another link holds the alias (alias history), no blocklist entry
 * matches a URL, and the owner has no `link.created` webhook (whose outbox row needs the create's
 * transaction). A guard that fails inserts nothing, like a taken alias; the caller asks why only
 * then. So a plain create is one statement, and no cached state can let a blocked URL or an
 * unannounced link through.
 */

export type LinkValues = Omit<typeof links.$inferInsert, 'id' | 'alias'>

export interface Guards {
  /** refuse an alias an earlier alias of another link holds (a random one: a custom alias is checked after its insert) */
  history: boolean
  /** refuse URLs a blocklist entry matches (the caller did not check them itself) */
  blocklist: boolean
  /** refuse when the owner has an enabled `link.created` webhook (the plain create, outside a transaction) */
  webhook: boolean
}

const p = (name: string) => sql.placeholder(name)

/** What the database fills in; the rest of the row is what was sent (see `rowOf`). */
const generated = { id: links.id, createdAt: links.createdAt, updatedAt: links.updatedAt, nextCheckAt: links.nextCheckAt }

function build(db: Db | Tx) {
  const l = db.$with('l', generated).as(sql`insert into ${links} (user_id, domain_id, alias, custom_alias, url, title, description,
      type, page_id, password_hash, privacy_password_hash, expires_at, expiration_url, expiration_clicks, privacy, disabled,
      meta_title, meta_description, meta_image, deep_link, parameters, target_type, campaign_id, redirect_status, cache_ttl, fallback)
    select ${p('userId')}::int, ${p('domainId')}::int, ${p('alias')}::text, ${p('customAlias')}::boolean, ${p('url')}::text,
      ${p('title')}::text, ${p('description')}::text, ${p('type')}::text, ${p('pageId')}::int, ${p('passwordHash')}::text,
      ${p('privacyPasswordHash')}::text, ${p('expiresAt')}::timestamptz, ${p('expirationUrl')}::text, ${p('expirationClicks')}::int,
      ${p('privacy')}::smallint, ${p('disabled')}::boolean, ${p('metaTitle')}::text, ${p('metaDescription')}::text, ${p('metaImage')}::text,
      ${p('deepLink')}::text::jsonb, ${p('parameters')}::text::jsonb, ${p('targetType')}::smallint, ${p('campaignId')}::int,
      ${p('redirectStatus')}::smallint, ${p('cacheTtl')}::int, ${p('fallback')}::text
    where (not ${p('guardHistory')}::boolean or not exists (select 1 from ${linkAliases} a
        where coalesce(a.domain_id, 0) = coalesce(${p('domainId')}::int, 0) and a.alias = ${p('alias')}::text))
      and (not ${p('guardBlocklist')}::boolean or not ${blockedSql(p('suffixes'), p('haystack'))})
      and (not ${p('guardWebhook')}::boolean or not exists (select 1 from ${webhooks} w
        where w.user_id = ${p('userId')}::int and w.enabled and 'link.created' = any(w.events)))
    on conflict do nothing
    returning id, created_at, updated_at, next_check_at`)
  return db.with(l).select().from(l)
}

type Insert = ReturnType<ReturnType<typeof build>['prepare']>

// built once per database: drizzle's build of the statement costs about what the database spends on it
const prepared = new WeakMap<Db, HotStatement<Insert>>()

/**
 * Named on Postgres, where parsing and planning this statement took half a create's database time
 * (pgbench, 10 clients: 1,809 creates/s unnamed, 3,175 named); planned once on PGlite. A
 * transaction's statement is built for it alone, unnamed.
 */
function statementFor(db: Db | Tx): HotStatement<Insert> {
  if ('rollback' in db) return { named: null, unnamed: build(db).prepare('') }
  let q = prepared.get(db)
  if (!q) {
    const query = build(db)
    const text = query.toSQL()
    keepPlanned(db, text)
    // unnamed as well: the API key lookup's way, which poolers in transaction mode always take
    q = { named: isPglite(db) ? null : query.prepare(hotName('kurz_link_insert', text.sql)), unnamed: query.prepare('') }
    prepared.set(db, q)
  }
  return q
}

/**
 * The inserted row without reading it back: every column is what was sent or its schema default
 * (the row's own defaults are set once, by the INSERT; a link starts unchecked, unclicked and not
 * quarantined). Reading back all ~45 columns cost a plain create about a sixth of its time on PGlite.
 * Spelled out, no spread: an object literal of this size built by spreading is slow to make and use.
 */
function rowOf(v: LinkValues, alias: string, g: { id: number; createdAt: Date; updatedAt: Date; nextCheckAt: Date }): Link {
  return {
    id: g.id,
    userId: v.userId,
    domainId: v.domainId ?? null,
    alias,
    customAlias: v.customAlias ?? false,
    url: v.url,
    title: v.title ?? null,
    description: v.description ?? null,
    type: v.type ?? 'direct',
    pageId: v.pageId ?? null,
    passwordHash: v.passwordHash ?? null,
    expiresAt: v.expiresAt ?? null,
    expirationUrl: v.expirationUrl ?? null,
    expirationClicks: v.expirationClicks ?? null,
    privacy: v.privacy ?? PRIVACY.private,
    privacyPasswordHash: v.privacyPasswordHash ?? null,
    disabled: v.disabled ?? false,
    metaTitle: v.metaTitle ?? null,
    metaDescription: v.metaDescription ?? null,
    metaImage: v.metaImage ?? null,
    deepLink: v.deepLink ?? null,
    parameters: v.parameters ?? [],
    targetType: v.targetType ?? 0,
    lastRotation: 0,
    campaignId: v.campaignId ?? null,
    clicks: 0,
    uniqueClicks: 0,
    botClicks: 0,
    capClaims: 0,
    redirectStatus: v.redirectStatus ?? null,
    cacheTtl: v.cacheTtl ?? 0,
    fallback: v.fallback ?? null,
    healthState: 'unknown',
    healthStatus: null,
    healthReason: null,
    checkedAt: null,
    nextCheckAt: g.nextCheckAt,
    quarantined: false,
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
  }
}

/**
 * Inserts the link with `alias` unless the alias is taken or a guard holds; undefined then.
 * `urls` are the input's URL fields (what the blocklist guard matches).
 */
export async function guardedInsert(db: Db | Tx, values: LinkValues, alias: string, urls: { url: string }[], guards: Guards): Promise<Link | undefined> {
  const { suffixes, haystack } = guards.blocklist ? blockInputs(urls) : { suffixes: [], haystack: '' }
  const params = {
    userId: values.userId,
    domainId: values.domainId ?? null,
    alias,
    customAlias: values.customAlias ?? false,
    url: values.url,
    title: values.title ?? null,
    description: values.description ?? null,
    type: values.type ?? 'direct',
    pageId: values.pageId ?? null,
    passwordHash: values.passwordHash ?? null,
    privacyPasswordHash: values.privacyPasswordHash ?? null,
    expiresAt: values.expiresAt ? values.expiresAt.toISOString() : null,
    expirationUrl: values.expirationUrl ?? null,
    expirationClicks: values.expirationClicks ?? null,
    privacy: values.privacy ?? PRIVACY.private,
    disabled: values.disabled ?? false,
    metaTitle: values.metaTitle ?? null,
    metaDescription: values.metaDescription ?? null,
    metaImage: values.metaImage ?? null,
    deepLink: values.deepLink ? JSON.stringify(values.deepLink) : null,
    parameters: JSON.stringify(values.parameters ?? []),
    targetType: values.targetType ?? 0,
    campaignId: values.campaignId ?? null,
    redirectStatus: values.redirectStatus ?? null,
    cacheTtl: values.cacheTtl ?? 0,
    fallback: values.fallback ?? null,
    guardHistory: guards.history,
    guardBlocklist: guards.blocklist,
    guardWebhook: guards.webhook,
    suffixes,
    haystack,
  }
  const [generated] = await runHot(statementFor(db), (q) => q.execute(params))
  return generated ? rowOf(values, alias, generated) : undefined
}
