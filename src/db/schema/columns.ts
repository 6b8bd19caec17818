import { serial, timestamp } from 'drizzle-orm/pg-core'

export const id = () => serial().primaryKey()
export const createdAt = () => timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow()
export const updatedAt = () =>
  timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date())
export const at = () => timestamp({ withTimezone: true, mode: 'date' })
