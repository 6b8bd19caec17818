import { boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { createdAt, id } from './columns.js'
import { users } from './users.js'

export const CHANNEL_ITEM_TYPES = ['links', 'bio', 'qr'] as const
export type ChannelItemType = (typeof CHANNEL_ITEM_TYPES)[number]

export const channels = pgTable(
  'channels',
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text().notNull().default(''),
    color: text().notNull().default('#000000'),
    starred: boolean().notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index('channels_user_idx').on(t.userId)],
)

/**
 * Items are polymorphic (a link, bio page or QR code), so there is no FK to the item: deleting a
 * link or QR code deletes its rows here in the same transaction.
 */
export const channelItems = pgTable(
  'channel_items',
  {
    channelId: integer().notNull().references(() => channels.id, { onDelete: 'cascade' }),
    itemType: text({ enum: CHANNEL_ITEM_TYPES }).notNull(),
    itemId: integer().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.channelId, t.itemType, t.itemId] }),
    index('channel_items_item_idx').on(t.itemType, t.itemId),
  ],
)
