import { eq } from 'drizzle-orm'
import { customAlphabet } from 'nanoid'
import type { Db } from './client.js'
import { deploymentSettings } from './schema/index.js'

/** A fact about the deployment (`deployment_settings`), or undefined when none is recorded. */
export async function readSetting(db: Db, name: string): Promise<string | undefined> {
  const [row] = await db.select({ value: deploymentSettings.value }).from(deploymentSettings).where(eq(deploymentSettings.name, name))
  return row?.value
}

/**
 * Records `value` under `name` unless a value is there already, and returns what is recorded:
 * several instances starting at once all get the first writer's value.
 */
export async function claimSetting(db: Db, name: string, value: string): Promise<string> {
  await db.insert(deploymentSettings).values({ name, value }).onConflictDoNothing()
  return (await readSetting(db, name))!
}

const newId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 10)

/**
 * This deployment's id: random, made by the first start against its database and shared by every
 * instance and CLI run on it. It keeps the deployment's Redis keys and channels apart from another
 * deployment's on the same Redis (lib/redis.ts), where staging's "drop every cached link" or its
 * count of wrong passwords from an address would otherwise reach production.
 */
export async function deploymentId(db: Db): Promise<string> {
  return (await readSetting(db, 'deployment_id')) ?? claimSetting(db, 'deployment_id', newId())
}
