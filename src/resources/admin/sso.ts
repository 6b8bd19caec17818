import { and, eq, gt, isNull } from 'drizzle-orm'
import type { Db } from '../../db/client.js'
import { ssoTokens } from '../../db/schema/index.js'
import { newToken, sha256 } from '../../lib/crypto.js'
import { HOUR } from '../../lib/time.js'

export const SSO_TTL = HOUR

/** Issues a single-use login URL; only the token's SHA-256 is stored. */
export async function issueSsoUrl(db: Db, publicUrl: string, userId: number, createdBy: number): Promise<string> {
  const token = newToken()
  await db.insert(ssoTokens).values({ tokenHash: sha256(token), userId, createdBy, expiresAt: new Date(Date.now() + SSO_TTL) })
  return `${publicUrl}/sso/${token}`
}

/** Whether a token would still sign in, without spending it (a HEAD from a link previewer). */
export async function ssoTokenValid(db: Db, token: string): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return false
  const [row] = await db
    .select({ userId: ssoTokens.userId })
    .from(ssoTokens)
    .where(and(eq(ssoTokens.tokenHash, sha256(token)), isNull(ssoTokens.usedAt), gt(ssoTokens.expiresAt, new Date())))
  return row !== undefined
}

/**
 * Consumes a token in one conditional UPDATE: of two simultaneous visits, exactly one sees the
 * row still unused and wins. Returns the user id, or null for unknown, used or expired tokens.
 */
export async function consumeSsoToken(db: Db, token: string): Promise<number | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null
  const [row] = await db
    .update(ssoTokens)
    .set({ usedAt: new Date() })
    .where(and(eq(ssoTokens.tokenHash, sha256(token)), isNull(ssoTokens.usedAt), gt(ssoTokens.expiresAt, new Date())))
    .returning({ userId: ssoTokens.userId })
  return row?.userId ?? null
}
