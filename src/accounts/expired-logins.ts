import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'drizzle-orm'
import { affected, type Db } from '../db/client.js'
import { startPeriodic } from '../lib/periodic.js'
import { DAY, MINUTE } from '../lib/time.js'

/**
 * Dashboard sessions and SSO login URLs past their expiry: nothing accepts them again (each read
 * checks `expires_at`), but every sign-in and every SSO URL adds a row, and none was ever deleted.
 * Used SSO URLs go once expired too.
 */
export async function deleteExpiredLogins(db: Db, now = new Date()): Promise<{ sessions: number; ssoUrls: number }> {
  const at = now.toISOString()
  const s = await db.execute(sql`delete from sessions where expires_at < ${at}::timestamptz`)
  const u = await db.execute(sql`delete from sso_tokens where expires_at < ${at}::timestamptz`)
  return { sessions: affected(s), ssoUrls: affected(u) }
}

/** Runs the sweep five minutes after start and then daily, on an unref'd timer; returns a stop function. */
export function startExpiredLoginSweep(db: Db, log: FastifyBaseLogger): () => void {
  return startPeriodic(
    async () => {
      try {
        const r = await deleteExpiredLogins(db)
        if (r.sessions || r.ssoUrls) log.info(r, 'expired dashboard sessions and SSO login URLs deleted')
      } catch (err) {
        log.warn({ err }, 'deleting expired sessions failed; retrying tomorrow')
      }
    },
    5 * MINUTE,
    DAY,
  )
}
