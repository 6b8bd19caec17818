import { index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { createdAt, id } from './columns.js'
import { links } from './links.js'
import { users } from './users.js'

/** A domain entry matches its host and every subdomain; a keyword matches anywhere in a URL. */
export const BLOCKLIST_TYPES = ['domain', 'keyword'] as const
export type BlocklistType = (typeof BLOCKLIST_TYPES)[number]

/** The admin blocklist (DECISIONS §10.6). `value` is stored lower-case, as it is matched. */
export const blocklistEntries = pgTable(
  'blocklist_entries',
  {
    id: id(),
    type: text({ enum: BLOCKLIST_TYPES }).notNull(),
    value: text().notNull(),
    reason: text(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('blocklist_type_value_idx').on(t.type, t.value)],
)

/** A visitor's report of a link through `/<alias>/report`; kept when the link goes, for the record. */
export const linkReports = pgTable(
  'link_reports',
  {
    id: id(),
    linkId: integer().references(() => links.id, { onDelete: 'set null' }),
    /** the short URL as reported, so a report outlives its link */
    shortUrl: text().notNull(),
    reason: text().notNull(),
    comment: text(),
    email: text(),
    createdAt: createdAt(),
  },
  (t) => [index('link_reports_created_idx').on(t.createdAt), index('link_reports_link_idx').on(t.linkId)],
)
