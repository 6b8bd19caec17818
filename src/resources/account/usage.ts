import { and, count, eq } from 'drizzle-orm'
import type { Db } from '../../db/client.js'
import { clickQuota, domains, pages, pixels } from '../../db/schema/index.js'
import type { AuthUser } from '../../http/auth.js'
import { countLinks } from '../links/repo.js'
import { presentUsage, type AccountUsage } from './present-usage.js'

const counted = async (q: Promise<{ n: number }[]>) => (await q)[0]?.n ?? 0

/**
 * What the account uses of its plan (GET /api/account/usage): the plan's caps as its `limits`
 * has them, and the counts the API checks them against (requireLinkRoom, requireCount, the click
 * quota). An admin is never limited: every cap is 0 and every feature enabled.
 */
export async function accountUsage(db: Db, user: AuthUser): Promise<AccountUsage> {
  const month = new Date().toISOString().slice(0, 7)
  const [links, clicks, domain, pixelCount, splash, overlay] = await Promise.all([
    countLinks(db, user.id),
    counted(db.select({ n: clickQuota.count }).from(clickQuota).where(and(eq(clickQuota.userId, user.id), eq(clickQuota.month, month)))),
    counted(db.select({ n: count() }).from(domains).where(eq(domains.userId, user.id))),
    counted(db.select({ n: count() }).from(pixels).where(eq(pixels.userId, user.id))),
    counted(db.select({ n: count() }).from(pages).where(and(eq(pages.userId, user.id), eq(pages.kind, 'splash')))),
    counted(db.select({ n: count() }).from(pages).where(and(eq(pages.userId, user.id), eq(pages.kind, 'overlay')))),
  ])
  return presentUsage(user, month, { links, clicks, domain, pixels: pixelCount, splash, overlay })
}
