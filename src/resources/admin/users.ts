import { createHash } from 'node:crypto'
import { and, asc, desc, eq, ilike, inArray, isNull, sql, type SQL } from 'drizzle-orm'
import { defaultPlan, expireSubscriptions, onPaidPlan, planLapsedSql } from '../../accounts/effective-plan.js'
import type { Plan, User } from '../../accounts/types.js'
import type { Db, Tx } from '../../db/client.js'
import { containsPattern } from '../../db/like.js'
import { apiKeys, plans, users } from '../../db/schema/index.js'
import { conflict, isUniqueViolation } from '../../http/errors.js'
import { toTimestamp } from '../../http/format.js'
import { decrypt, encrypt, hmac, newApiKey, type Keys } from '../../lib/crypto.js'
import { hashPassword } from '../../lib/passwords.js'

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

export async function findUser(db: Db | Tx, id: number): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id))
  return row
}

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  // lowered here, not by Postgres: its lower() folds 'İ' to 'i' where JavaScript keeps a dot, so
  // the login throttle (keyed on JavaScript's lowercase) would count 'alİce' apart from 'alice'
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
  return row
}

export interface UserFilter {
  filter?: 'admin' | 'free' | 'pro'
  email?: string
  limit: number
  offset: number
}

/** Admin list, newest first; `pro` = on a non-free plan that has not expired. */
export async function listUsers(db: Db, f: UserFilter) {
  await expireSubscriptions(db)
  const where: SQL[] = []
  const proCondition = sql`(${plans.free} = false and not ${planLapsedSql})`
  if (f.filter === 'admin') where.push(eq(users.admin, true))
  if (f.filter === 'pro') where.push(proCondition)
  if (f.filter === 'free') where.push(sql`not coalesce(${proCondition}, false)`)
  if (f.email) where.push(ilike(users.email, containsPattern(f.email)))
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
  return onPaidPlan(user, plan) ? 'pro' : 'free'
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

