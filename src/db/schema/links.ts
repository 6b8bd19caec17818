import { sql } from 'drizzle-orm'
import { boolean, index, integer, jsonb, pgTable, primaryKey, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core'
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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // one alias per domain, case-sensitive; null domain = the default domain
    uniqueIndex('links_domain_alias_idx').on(sql`coalesce(${t.domainId}, 0)`, t.alias),
    index('links_user_created_idx').on(t.userId, t.createdAt),
    index('links_user_clicks_idx').on(t.userId, t.clicks),
    index('links_campaign_idx').on(t.campaignId),
    index('links_domain_idx').on(t.domainId),
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
