import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { createdAt, id } from './columns.js'
import { users } from './users.js'

export const campaigns = pgTable(
  'campaigns',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    /** rotator slug, unique service-wide; null = no rotator */
    slug: text().unique(),
    public: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index('campaigns_user_idx').on(t.userId)],
)
