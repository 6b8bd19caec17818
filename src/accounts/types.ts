import type { plans, users } from '../db/schema/index.js'

export type User = typeof users.$inferSelect
export type Plan = typeof plans.$inferSelect
