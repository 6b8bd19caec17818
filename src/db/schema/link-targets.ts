import { index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { id } from './columns.js'
import { links } from './links.js'

export const TARGET_KINDS = ['geo', 'device', 'language', 'rotation'] as const
export type TargetKind = (typeof TARGET_KINDS)[number]

/** Geo, device, language and rotation targets of a link, in the order they were sent. */
export const linkTargets = pgTable(
  'link_targets',
  {
    id: id(),
    linkId: integer().notNull().references(() => links.id, { onDelete: 'cascade' }),
    kind: text({ enum: TARGET_KINDS }).notNull(),
    /** as sent: "United States", "iPhone", "en"; null for rotation */
    key: text(),
    /** normalised for matching: ISO country code, canonical device, language code */
    match: text(),
    url: text().notNull(),
    position: integer().notNull().default(0),
  },
  (t) => [index('link_targets_link_idx').on(t.linkId, t.kind, t.position)],
)
