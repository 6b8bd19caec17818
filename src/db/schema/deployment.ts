import { pgTable, text } from 'drizzle-orm/pg-core'
import { updatedAt } from './columns.js'

/**
 * Facts about the deployment itself, one row per name, shared by every instance and the CLI:
 * `secret_check` proves which SECRET_KEY the stored API keys were sealed with (accounts/deployment-secret.ts).
 */
export const deploymentSettings = pgTable('deployment_settings', {
  name: text().primaryKey(),
  value: text().notNull(),
  updatedAt: updatedAt(),
})
