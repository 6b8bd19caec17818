import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'
import { at, createdAt, id, updatedAt } from './columns.js'
import { users } from './users.js'
import { domains } from './domains.js'
import { pages } from './pages.js'
import { campaigns } from './campaigns.js'
import { pixels } from './pixels.js'

export type DeepLink = { auto: boolean; apple: string | null; google: string | null }
export type LinkParameter = { name: string; value: string }

/** The built-in redirection types; a custom splash page or overlay is `type` + `pageId`. */
export const LINK_TYPES = ['direct', 'frame', 'splash', 'splash-page', 'overlay'] as const
export type LinkType = (typeof LINK_TYPES)[number]

/** privacy of the statistics page: 0 public, 1 private, 2 password (v1 `privacy`, management `status`) */
export const PRIVACY = { public: 0, private: 1, password: 2 } as const

/** What the health checker last found at a link's long URL (DECISIONS §10.5). */
export const HEALTH_STATES = ['ok', 'broken', 'unknown'] as const
export type HealthState = (typeof HEALTH_STATES)[number]

export const links = pgTable(
  'links',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** null = the default domain (PUBLIC_URL host); deleting a branded domain moves links here */
    domainId: integer().references(() => domains.id, { onDelete: 'set null' }),
    alias: text().notNull(),
    /** whether the alias was chosen by the caller (custom) or generated */
    customAlias: boolean().notNull().default(false),
    url: text().notNull(),
    title: text(),
    description: text(),
    type: text({ enum: LINK_TYPES }).notNull().default('direct'),
    pageId: integer().references(() => pages.id, { onDelete: 'set null' }),
    passwordHash: text(),
    expiresAt: at(),
    expirationUrl: text(),
    expirationClicks: integer(),
    privacy: smallint().notNull().default(PRIVACY.private),
    privacyPasswordHash: text(),
    disabled: boolean().notNull().default(false),
    metaTitle: text(),
    metaDescription: text(),
    metaImage: text(),
    deepLink: jsonb().$type<DeepLink>(),
    parameters: jsonb().$type<LinkParameter[]>().notNull().default([]),
    /** v1 target_type: 0 none, 1 geo, 2 platform, 3 language, 4 rotation */
    targetType: smallint().notNull().default(0),
    /** index of the last rotation target served (v1 `last_rotation`) */
    lastRotation: integer().notNull().default(0),
    campaignId: integer().references(() => campaigns.id, { onDelete: 'set null' }),
    /** counters bumped by the click pipeline in the same transaction as the click rows */
    clicks: integer().notNull().default(0),
    uniqueClicks: integer().notNull().default(0),
    botClicks: integer().notNull().default(0),
    /**
     * visits let through under `expiration_clicks`, claimed one at a time by a conditional update
     * (redirect/click-cap.ts) so a cap is exact across instances; `clicks` lags it by the buffer
     */
    capClaims: integer().notNull().default(0),
    /** status of a `direct` answer; null = REDIRECT_STATUS, so changing the setting moves every link that never chose */
    redirectStatus: smallint(),
    /** seconds a `direct` answer may be cached: 0 = private, max-age=0 */
    cacheTtl: integer().notNull().default(0),
    /** where visitors go while the long URL is broken */
    fallback: text(),
    healthState: text({ enum: HEALTH_STATES }).notNull().default('unknown'),
    /** the HTTP status of the last check, null when none came back */
    healthStatus: smallint(),
    healthReason: text(),
    checkedAt: at(),
    /** when a checker may claim the link next: claimed and pushed forward in one statement */
    nextCheckAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** a blocklist entry matched it (DECISIONS §10.6): visitors get the 451 warning page until an admin releases it */
    quarantined: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // one alias per domain, case-sensitive; null domain = the default domain
    uniqueIndex('links_domain_alias_idx').on(sql`coalesce(${t.domainId}, 0)`, t.alias),
    index('links_user_created_idx').on(t.userId, t.createdAt),
    // the account overview (clicks/account-series.ts) joins an account's link ids, read from this index alone
    index('links_user_id_idx').on(t.userId, t.id),
    // no index on `clicks`: every click batch updates it, and an indexed column makes each update
    // write a new entry in every index of the table (migration 0013, docs/decisions.md)
    index('links_campaign_idx').on(t.campaignId),
    index('links_domain_idx').on(t.domainId),
    index('links_next_check_idx').on(t.nextCheckAt),
    // alias, url, title and description also have pg_trgm GIN indexes for contains-searches; they
    // are made by migration 0014 only where the extension could be created, so they are not here
  ],
)

/**
 * Earlier aliases of a link (alias history): each keeps serving the link and stays reserved on
 * its domain until released. One alias per domain across links and this table.
 */
export const linkAliases = pgTable(
  'link_aliases',
  {
    id: id(),
    linkId: integer().notNull().references(() => links.id, { onDelete: 'cascade' }),
    /** the domain the alias was on; null = the default domain */
    domainId: integer().references(() => domains.id, { onDelete: 'cascade' }),
    alias: text().notNull(),
    /** when the link stopped having this alias as its own */
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('link_aliases_domain_alias_idx').on(sql`coalesce(${t.domainId}, 0)`, t.alias),
    index('link_aliases_link_idx').on(t.linkId),
  ],
)

export const linkPixels = pgTable(
  'link_pixels',
  {
    linkId: integer().notNull().references(() => links.id, { onDelete: 'cascade' }),
    pixelId: integer().notNull().references(() => pixels.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.linkId, t.pixelId] }), index('link_pixels_pixel_idx').on(t.pixelId)],
)
