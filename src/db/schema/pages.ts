import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core'
import { createdAt, id, updatedAt } from './columns.js'
import { users } from './users.js'
import { links } from './links.js'

/**
 * Splash pages and CTA overlays share this table, so they draw ids from one sequence and a bare
 * link `type` id is unambiguous (DECISIONS §4).
 */
export const pages = pgTable(
  'pages',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    kind: text({ enum: ['splash', 'overlay'] }).notNull(),
    name: text().notNull(),
    /** overlays: message | contact | poll */
    overlayType: text({ enum: ['message', 'contact', 'poll'] }),
    title: text(),
    message: text(),
    imageUrl: text(),
    buttonLabel: text(),
    buttonUrl: text(),
    /** splash countdown in seconds */
    countdown: integer(),
    /** colours, poll options and other per-kind settings */
    settings: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('pages_user_kind_idx').on(t.userId, t.kind)],
)

/** Contact-form submissions and poll votes of overlays, shown to the overlay's owner. */
export const overlayResponses = pgTable(
  'overlay_responses',
  {
    id: id(),
    pageId: integer().notNull().references(() => pages.id, { onDelete: 'cascade' }),
    linkId: integer().references(() => links.id, { onDelete: 'set null' }),
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('overlay_responses_page_idx').on(t.pageId)],
)
