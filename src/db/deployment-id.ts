import { eq } from 'drizzle-orm'
import { customAlphabet } from 'nanoid'
import type { Db } from './client.js'
import { deploymentSettings } from './schema/index.js'

const NAME = 'deployment_id'
const newId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 10)

/**
 * This deployment's id: random, made by the first start against its database and shared by every
 * instance and CLI run on it. It keeps the deployment's Redis keys and channels apart from another
 * deployment's on the same Redis (lib/redis.ts), where staging's "drop every cached link" or its
 * count of wrong passwords from an address would otherwise reach production.
 */
export async function deploymentId(db: Db): Promise<string> {
  const read = async () => (await db.select({ value: deploymentSettings.value }).from(deploymentSettings).where(eq(deploymentSettings.name, NAME)))[0]?.value
  const found = await read()
  if (found) return found
  // several instances starting at once: the first write wins, and everyone reads it back
  await db.insert(deploymentSettings).values({ name: NAME, value: newId() }).onConflictDoNothing()
  return (await read())!
}
