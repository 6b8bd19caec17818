import { index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { createdAt, id } from './columns.js'
import { users } from './users.js'

/** SPEC.md: exactly these 13 types. */
export const PIXEL_TYPES = [
  'gtmpixel', 'gapixel', 'fbpixel', 'adwordspixel', 'linkedinpixel', 'twitterpixel', 'adrollpixel',
  'quorapixel', 'pinterest', 'bing', 'snapchat', 'reddit', 'tiktok',
] as const
export type PixelType = (typeof PIXEL_TYPES)[number]

export const pixels = pgTable(
  'pixels',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    type: text({ enum: PIXEL_TYPES }).notNull(),
    name: text().notNull(),
    tag: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('pixels_user_idx').on(t.userId)],
)
