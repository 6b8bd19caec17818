import { createHash } from 'node:crypto'
import { and, asc, desc, eq, ilike, inArray, isNull, lte, sql, type SQL } from 'drizzle-orm'
import type { Db, Tx } from '../../db/client.js'
import { apiKeys, plans, users } from '../../db/schema/index.js'
import { conflict, isUniqueViolation } from '../../http/errors.js'
import { toTimestamp } from '../../http/format.js'
import { decrypt, encrypt, hmac, newApiKey, type Keys } from '../../lib/crypto.js'
import { hashPassword } from '../../lib/passwords.js'
import { defaultPlan, type Plan } from './plans.js'

export type User = typeof users.$inferSelect

export interface NewUser {
  email: string
  username: string
  password: string
  admin?: boolean
  planId?: number
  planExpires?: Date | null
  /** a chosen key (ADMIN_API_KEY); generated otherwise */
  apiKey?: string
}

function constraintOf(err: unknown): string {
  const e = err as { constraint?: string; cause?: { constraint?: string } }
  return e?.constraint ?? e?.cause?.constraint ?? ''
}

/** Creates the user and their API key in one transaction; the plain key is returned only here. */
export async function createUser(db: Db, keys: Keys, input: NewUser): Promise<{ user: User; apiKey: string }> {
  const passwordHash = await hashPassword(input.password)
  const apiKey = input.apiKey ?? newApiKey()
  try {
    return await db.transaction(async (tx) => {
      const planId = input.planId ?? (await defaultPlan(tx)).id
      const [user] = await tx
        .insert(users)
        .values({
          email: input.email,
          username: input.username,
          passwordHash,
          admin: input.admin ?? false,
          planId,
          planExpires: input.planExpires ?? null,
        })
        .returning()
      await insertKey(tx, keys, user.id, apiKey)
      return { user, apiKey }
    })
  } catch (err) {
    if (isUniqueViolation(err)) {
      const c = constraintOf(err)
      if (c.includes('username')) throw conflict('That username is already taken.', 'username')
      if (c.includes('email')) throw conflict('That email address is already registered.', 'email')
      throw conflict('That API key is already in use.', 'apikey')
    }
    throw err
  }
}

async function insertKey(tx: Db | Tx, keys: Keys, userId: number, apiKey: string) {
  await tx.insert(apiKeys).values({
    userId,
    keyHash: hmac(keys.apiKeyLookup, apiKey),
    keyEncrypted: encrypt(keys.apiKeySeal, apiKey),
  })
}

/** Revokes the user's keys and issues a new one; the old key then answers 401 "expired". */
export async function rotateApiKey(db: Db, keys: Keys, userId: number): Promise<string> {
  const apiKey = newApiKey()
  await db.transaction(async (tx) => {
    await tx.update(apiKeys).set({ revokedAt: new Date() }).where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    await insertKey(tx, keys, userId, apiKey)
  })
  return apiKey
}

export async function apiKeyOf(db: Db, keys: Keys, userId: number): Promise<string | null> {
  const [row] = await db
    .select({ sealed: apiKeys.keyEncrypted })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.id))
    .limit(1)
  return row ? decrypt(keys.apiKeySeal, row.sealed) : null
}

/** Current keys of several users in one query (the admin list). */
export async function apiKeysOf(db: Db, keys: Keys, userIds: number[]): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  if (!userIds.length) return out
  const rows = await db
    .select({ userId: apiKeys.userId, sealed: apiKeys.keyEncrypted })
    .from(apiKeys)
    .where(and(inArray(apiKeys.userId, userIds), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.id))
  for (const row of rows) out.set(row.userId, decrypt(keys.apiKeySeal, row.sealed)) // the newest wins
  return out
}

export type KeyLookup = { user: User; plan: Plan | null; keyId: number; keyHash: string; revoked: boolean }

/** The key lookup of every API request, built once per database (drizzle's query build cost more than the query). */
const keyLookups = new WeakMap<Db, ReturnType<typeof keyLookupQuery>>()

function keyLookupQuery(db: Db) {
  return db
    .select({ user: users, plan: plans, keyId: apiKeys.id, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .leftJoin(plans, eq(plans.id, users.planId))
    .where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
    .limit(1)
    .prepare('') // unnamed: no server-side prepared statement (poolers in transaction mode stay fine)
}

export async function findByApiKey(db: Db, keys: Keys, apiKey: string): Promise<KeyLookup | null> {
  const keyHash = hmac(keys.apiKeyLookup, apiKey)
  let query = keyLookups.get(db)
  if (!query) keyLookups.set(db, (query = keyLookupQuery(db)))
  const [row] = await query.execute({ keyHash })
  if (!row) return null
  return { user: row.user, plan: row.plan, keyId: row.keyId, keyHash, revoked: row.revokedAt !== null }
}

/**
 * Past `planExpires` the user is back on the default free plan (DECISIONS §3), applied on their
 * next request so no scheduler is needed.
 */
export async function currentPlan(db: Db, user: User, plan: Plan | null): Promise<{ user: User; plan: Plan }> {
  const expired = user.planExpires !== null && user.planExpires.getTime() <= Date.now()
  if (plan && !expired) return { user, plan }
  const fallback = await defaultPlan(db)
  const [updated] = await db
    .update(users)
    .set({ planId: fallback.id, planExpires: null })
    .where(eq(users.id, user.id))
    .returning()
  return { user: updated ?? user, plan: fallback }
}

export async function findUser(db: Db | Tx, id: number): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id))
  return row
}

export async function findUserWithPlan(db: Db, id: number): Promise<{ user: User; plan: Plan } | undefined> {
  const [row] = await db.select({ user: users, plan: plans }).from(users).leftJoin(plans, eq(plans.id, users.planId)).where(eq(users.id, id))
  if (!row) return undefined
  return currentPlan(db, row.user, row.plan)
}

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`)
  return row
}

export interface UserFilter {
  filter?: 'admin' | 'free' | 'pro'
  email?: string
  limit: number
  offset: number
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/** Moves every user whose subscription has ended back to the default plan (DECISIONS §3). */
export async function expireSubscriptions(db: Db): Promise<void> {
  const fallback = await defaultPlan(db)
  await db.update(users).set({ planId: fallback.id, planExpires: null }).where(lte(users.planExpires, new Date()))
}

/** Admin list, newest first; `pro` = on a non-free plan that has not expired. */
export async function listUsers(db: Db, f: UserFilter) {
  await expireSubscriptions(db)
  const where: SQL[] = []
  const proCondition = sql`(${plans.free} = false and (${users.planExpires} is null or ${users.planExpires} > now()))`
  if (f.filter === 'admin') where.push(eq(users.admin, true))
  if (f.filter === 'pro') where.push(proCondition)
  if (f.filter === 'free') where.push(sql`not coalesce(${proCondition}, false)`)
  if (f.email) where.push(ilike(users.email, `%${likeEscape(f.email)}%`))
  return db
    .select({ user: users, plan: plans })
    .from(users)
    .leftJoin(plans, eq(plans.id, users.planId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(f.limit)
    .offset(f.offset)
}

export function accountStatus(user: User, plan: Plan | null): 'pro' | 'free' {
  const active = user.planExpires === null || user.planExpires.getTime() > Date.now()
  return plan && !plan.free && active ? 'pro' : 'free'
}

export const avatarUrl = (email: string) =>
  `https://www.gravatar.com/avatar/${createMd5(email.trim().toLowerCase())}?d=identicon`

const createMd5 = (s: string) => createHash('md5').update(s).digest('hex')

/** SPEC.md Account. */
export function presentAccount(user: User, plan: Plan | null) {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    avatar: avatarUrl(user.email),
    status: accountStatus(user, plan),
    expires: toTimestamp(user.planExpires),
    registered: toTimestamp(user.createdAt),
  }
}

/** SPEC.md User: the account plus planid and apikey; `admin` is an extension field. */
export function presentUser(user: User, plan: Plan | null, apikey: string | null) {
  return { ...presentAccount(user, plan), planid: user.planId, apikey, admin: user.admin }
}

