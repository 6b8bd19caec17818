import { index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { createdAt, id } from './columns.js'
import { users } from './users.js'

export const domains = pgTable(
  'domains',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** origin as returned: scheme + host, lower-case, no trailing slash */
    domain: text().notNull(),
    /** host[:port], lower-case, what the Host header is matched against; unique service-wide */
    host: text().notNull().unique(),
    redirectRoot: text(),
    redirect404: text(),
    createdAt: createdAt(),
  },
  (t) => [index('domains_user_idx').on(t.userId)],
)
