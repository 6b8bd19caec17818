import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core'
import { createdAt, id, updatedAt } from './columns.js'
import { users } from './users.js'

export const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'] as const
export type QrType = (typeof QR_TYPES)[number]

export const qrCodes = pgTable(
  'qr_codes',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** shared by /qr/<alias> (image) and /q/<alias> (tracked scan); unique service-wide */
    alias: text().notNull().unique(),
    type: text({ enum: QR_TYPES }).notNull(),
    /** `data` as sent (string or object) */
    data: jsonb().$type<unknown>().notNull(),
    /** where a scan of /q/<alias> goes (link: the URL; email: mailto:…; …) */
    target: text().notNull(),
    /** what the image encodes: the tracked scan URL, or the content itself for text and wifi */
    content: text().notNull(),
    name: text().notNull(),
    background: text().notNull().default('rgb(255,255,255)'),
    foreground: text().notNull().default('rgb(0,0,0)'),
    /** logo as a data: URL (fetched once on create/update) */
    logo: text(),
    /** short hash of the logo bytes: the image cache key, so serving a cached image never loads the logo */
    logoHash: text(),
    scans: integer().notNull().default(0),
    uniqueScans: integer().notNull().default(0),
    botScans: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('qr_codes_user_idx').on(t.userId, t.createdAt)],
)
