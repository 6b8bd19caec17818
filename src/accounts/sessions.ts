import { and, eq, gt, sql } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { sessions } from '../db/schema/index.js'
import { newToken, sha256 } from '../lib/crypto.js'
import { DAY } from '../lib/time.js'

/** Dashboard sessions: server-side rows keyed by the SHA-256 of the cookie's 256-bit token. */
export const SESSION_TTL = 7 * DAY
export const SESSION_COOKIE = 'kurz_session'
/**
 * Sessions a user keeps at most: a new one past this ends the oldest. A person has a few browsers;
 * a script signing in over and over (or a leaked password) must not grow the table without end.
 */
export const SESSIONS_PER_USER = 50

export async function createSession(db: Db, userId: number): Promise<string> {
  const token = newToken()
  await db.insert(sessions).values({ tokenHash: sha256(token), userId, expiresAt: new Date(Date.now() + SESSION_TTL) })
  await db.execute(sql`delete from ${sessions} where ${sessions.userId} = ${userId} and ${sessions.tokenHash} in (
    select ${sessions.tokenHash} from ${sessions} where ${sessions.userId} = ${userId}
    order by ${sessions.createdAt} desc, ${sessions.expiresAt} desc offset ${SESSIONS_PER_USER})`)
  return token
}

export async function sessionUser(db: Db, token: string | undefined): Promise<number | null> {
  if (!token || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null
  const [row] = await db
    .select({ userId: sessions.userId })
    .from(sessions)
    .where(and(eq(sessions.tokenHash, sha256(token)), gt(sessions.expiresAt, new Date())))
  return row?.userId ?? null
}

export async function endSession(db: Db, token: string | undefined) {
  if (token) await db.delete(sessions).where(eq(sessions.tokenHash, sha256(token)))
}
