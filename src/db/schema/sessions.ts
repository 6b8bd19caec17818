import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { at, createdAt } from './columns.js'
import { users } from './users.js'

/** Dashboard sessions; the cookie carries the token, the table only its SHA-256. */
export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text().primaryKey(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
)

/** Single-use SSO login URLs (SPEC.md): stored hashed, valid one hour, consumed atomically. */
export const ssoTokens = pgTable(
  'sso_tokens',
  {
    tokenHash: text().primaryKey(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    usedAt: at(),
  },
  (t) => [index('sso_tokens_user_idx').on(t.userId)],
)
