import { index, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { at, createdAt, id } from './columns.js'
import { users } from './users.js'

/**
 * API keys: looked up by HMAC (keyed by SECRET_KEY), kept AES-256-GCM encrypted so admin
 * endpoints can show them. A rotated key keeps its row with revokedAt set, so it answers "expired".
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    keyHash: text().notNull().unique(),
    keyEncrypted: text().notNull(),
    createdAt: createdAt(),
    revokedAt: at(),
  },
  (t) => [index('api_keys_user_idx').on(t.userId)],
)
