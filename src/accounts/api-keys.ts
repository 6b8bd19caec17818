import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { prepared } from '../db/prepared.js'
import { apiKeys, plans, users } from '../db/schema/index.js'
import { hmac, type Keys } from '../lib/crypto.js'
import type { KeyCache } from './key-cache.js'
import type { Plan, User } from './types.js'

export type KeyLookup = { user: User; plan: Plan | null; keyId: number; keyHash: string; revoked: boolean }

/** The key lookup of every API request, built once per database (`prepared`). */
function keyLookupQuery(db: Db) {
  return db
    .select({ user: users, plan: plans, keyId: apiKeys.id, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .leftJoin(plans, eq(plans.id, users.planId))
    .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
    .limit(1)
    .prepare('')
}

/** The account an API key belongs to, with its stored plan (see effectivePlan for the one that applies). */
export async function findByApiKey(db: Db, keys: Keys, apiKey: string, cache?: KeyCache): Promise<KeyLookup | null> {
  const keyHash = hmac(keys.apiKeyLookup, apiKey)
  const load = async (): Promise<KeyLookup | null> => {
    const [row] = await prepared(db, keyLookupQuery).execute({ keyHash })
    if (!row) return null
    return { user: row.user, plan: row.plan, keyId: row.keyId, keyHash, revoked: row.revokedAt !== null }
  }
  return cache ? cache.resolve(keyHash, load) : load()
}
