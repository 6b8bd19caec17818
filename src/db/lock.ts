import { eq } from 'drizzle-orm'
import type { Tx } from './client.js'
import { users } from './schema/index.js'

/**
 * Serialises writes of one owner inside the caller's transaction, so a plan count ("the 6th
 * pixel", "the 11th link") cannot be overrun by two requests racing past the count check: the
 * second waits on the owner's row until the first commits, then counts again.
 */
export async function lockOwner(tx: Tx, userId: number): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
}
