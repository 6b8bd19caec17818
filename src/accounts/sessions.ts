import { and, eq, gt } from 'drizzle-orm'
import type { Db } from '../db/client.js'
import { sessions } from '../db/schema/index.js'
import { newToken, sha256 } from '../lib/crypto.js'
import { DAY } from '../lib/time.js'

/** Dashboard sessions: server-side rows keyed by the SHA-256 of the cookie's 256-bit token. */
export const SESSION_TTL = 7 * DAY
export const SESSION_COOKIE = 'kurz_session'

export async function createSession(db: Db, userId: number): Promise<string> {
  const token = newToken()
  await db.insert(sessions).values({ tokenHash: sha256(token), userId, expiresAt: new Date(Date.now() + SESSION_TTL) })
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
