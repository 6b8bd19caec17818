import { boolean, integer, jsonb, numeric, pgTable, text } from 'drizzle-orm/pg-core'
import { createdAt, id } from './columns.js'

export const FEATURES = [
  'custom', 'team', 'splash', 'overlay', 'pixels', 'domain', 'multiple',
  'alias', 'device', 'geo', 'bundle', 'parameters', 'export', 'api',
] as const
export type Feature = (typeof FEATURES)[number]
/** Features whose plan entry also carries a `count` (SPEC.md, Plan). */
export const COUNTED_FEATURES = ['team', 'splash', 'overlay', 'pixels', 'domain'] as const
export type CountedFeature = (typeof COUNTED_FEATURES)[number]

/** Stored exactly in the shape SPEC.md returns: enabled "0"/"1", count a numeric string ("0" = unlimited). */
export type FeatureSwitch = { enabled: '0' | '1'; count?: string }
export type PlanFeatures = Record<Feature, FeatureSwitch>

export const plans = pgTable('plans', {
  id: id(),
  name: text().notNull().unique(),
  free: boolean().notNull().default(false),
  /** the plan new users get and expired subscriptions fall back to */
  isDefault: boolean().notNull().default(false),
  priceMonthly: numeric({ precision: 10, scale: 2, mode: 'number' }),
  priceYearly: numeric({ precision: 10, scale: 2, mode: 'number' }),
  priceLifetime: numeric({ precision: 10, scale: 2, mode: 'number' }),
  /** most links a user may own; 0 = unlimited */
  maxLinks: integer().notNull().default(0),
  /** detailed clicks recorded per calendar month; 0 = unlimited */
  maxClicks: integer().notNull().default(0),
  /** days of click detail kept; 0 = forever */
  retentionDays: integer().notNull().default(0),
  features: jsonb().$type<PlanFeatures>().notNull(),
  createdAt: createdAt(),
})
