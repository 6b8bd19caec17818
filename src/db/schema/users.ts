import { sql } from 'drizzle-orm'
import { boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { at, createdAt, id, updatedAt } from './columns.js'
import { plans } from './plans.js'

export const users = pgTable(
  'users',
  {
    id: id(),
    email: text().notNull(),
    username: text().notNull(),
    passwordHash: text().notNull(),
    admin: boolean().notNull().default(false),
    planId: integer().references(() => plans.id, { onDelete: 'set null' }),
    /** end of the paid subscription; null = no expiry */
    planExpires: at(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`),
    uniqueIndex('users_username_lower_idx').on(sql`lower(${t.username})`),
    index('users_plan_idx').on(t.planId),
  ],
)
